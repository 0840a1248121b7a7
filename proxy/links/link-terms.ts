import { compareDecimals } from '../../lib/money.ts';
import { LINK_COUNTER, type NewLink } from '../../schemas/links.ts';
import { InvalidInputError, NotAllowedError } from '../domain/domain-errors.ts';
import { returnUrlFor } from '../payments/return-url.ts';
import { minusAmount, plusAmount, type LinkCreator, type LinkKind, type LinkRecord } from '../state/links.ts';
import { newLinkCode } from './link-codes.ts';

/** The shop's settings a link must keep within. */
export interface ShopTerms {
  /** KASSA_OPEN_AMOUNT: the bounds and currency of amounts customers type; null: not enabled. */
  openAmount: { min: string; max: string; currencyCode: string } | null;
  /** KASSA_RETURN_URLS. */
  returnUrls: readonly string[];
}

/**
 * A new link's record from what was asked, within the shop's terms: an open amount only where the
 * shop enabled open amounts, within its bounds and in its currency; a return URL the shop allows; a
 * cap on the total that at least one payment fits; an expiry still ahead.
 */
export function linkRecord(
  input: NewLink,
  shop: ShopTerms,
  createdBy: LinkCreator,
  now: number,
  kind: LinkKind = 'link',
): LinkRecord {
  const bounds = input.openAmount ? openBounds(input.openAmount, input.currencyCode, shop) : undefined;
  const smallest = input.amount ?? bounds!.min;
  if (input.maxTotal !== undefined && compareDecimals(input.maxTotal, smallest) < 0)
    throw new InvalidInputError(`maxTotal must be at least ${smallest}, the smallest payment the link takes`);
  const expiresAt = input.expiresAt === undefined ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null && expiresAt <= now) throw new InvalidInputError('expiresAt must be in the future');
  // Checked as a payment would check it (the status parameter is added then).
  if (input.returnUrl !== undefined) returnUrlFor(input.returnUrl, shop.returnUrls, 'x'.repeat(43));
  return {
    code: newLinkCode(),
    kind,
    title: input.title,
    description: input.description,
    currencyCode: input.currencyCode,
    amount: input.amount ?? null,
    minAmount: bounds?.min ?? null,
    maxAmount: bounds?.max ?? null,
    reference: input.reference,
    expiresAt,
    maxUses: input.maxUses ?? null,
    maxTotal: input.maxTotal ?? null,
    language: input.language ?? null,
    returnUrl: input.returnUrl ?? null,
    state: 'active',
    createdBy,
    createdAt: now,
    updatedAt: now,
    counter: 0,
    paidUses: 0,
    paidTotal: '0',
    heldUses: 0,
    heldTotal: '0',
    lastPaidAt: null,
  };
}

function openBounds(asked: NonNullable<NewLink['openAmount']>, currencyCode: string, shop: ShopTerms) {
  const open = shop.openAmount;
  if (!open)
    throw new NotAllowedError('Open amounts are not enabled (KASSA_OPEN_AMOUNT): give the link a fixed amount');
  if (currencyCode !== open.currencyCode)
    throw new InvalidInputError(`An open amount's currencyCode must be ${open.currencyCode} (KASSA_OPEN_AMOUNT)`);
  const min = asked.min ?? open.min;
  const max = asked.max ?? open.max;
  if (compareDecimals(min, open.min) < 0 || compareDecimals(max, open.max) > 0)
    throw new InvalidInputError(
      `openAmount must lie within ${open.min}..${open.max} ${open.currencyCode} (KASSA_OPEN_AMOUNT)`,
    );
  if (compareDecimals(min, max) > 0)
    throw new InvalidInputError('openAmount.min must not be greater than openAmount.max');
  return { min, max };
}

/**
 * An open link as a customer may pay it now: its upper bound lowered to what its cap on the total has
 * left (paid and held uses counted), while that still takes the smallest amount; when it does not,
 * the link is complete and `decideUse` says so.
 */
export function payableNow(link: LinkRecord): LinkRecord {
  if (link.maxAmount === null || link.maxTotal === null) return link;
  const taken = plusAmount(link.paidTotal, link.heldTotal);
  if (compareDecimals(taken, link.maxTotal) >= 0) return link;
  const left = minusAmount(link.maxTotal, taken);
  const narrower = compareDecimals(left, link.maxAmount) < 0 && compareDecimals(left, link.minAmount!) >= 0;
  return narrower ? { ...link, maxAmount: left } : link;
}

/** What a customer pays: the link's amount, or the one they typed, within the bounds it takes now. */
export function amountToPay(link: LinkRecord, typed: string | undefined): string {
  if (link.amount !== null) {
    if (typed !== undefined && compareDecimals(typed, link.amount) !== 0)
      throw new InvalidInputError(`This link's amount is fixed: ${link.amount} ${link.currencyCode}`);
    return link.amount;
  }
  const { minAmount: min, maxAmount: max } = payableNow(link) as { minAmount: string; maxAmount: string };
  if (typed === undefined) throw new InvalidInputError('amount is required: this link takes the amount you type');
  if (compareDecimals(typed, min) < 0 || compareDecimals(typed, max) > 0)
    throw new InvalidInputError(`amount must be from ${min} to ${max} ${link.currencyCode}`, {
      details: { reason: 'amount-out-of-bounds', min, max, currencyCode: link.currencyCode },
    });
  return typed;
}

/** A use's reference: the link's, with the use's number where the template says. */
export const referenceOf = (template: string, n: number): string => template.replace(LINK_COUNTER, String(n));

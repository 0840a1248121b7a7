import { STATUS_QUERY_PARAM } from '../../lib/status-token.ts';
import type { LinkPaymentView, LinkView } from '../../schemas/links.ts';
import { decideUse, type LinkRecord, type LinkUse } from '../state/links.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The path of a link's page on the proxy. */
export const linkPath = (code: string): string => `/l/${code}`;

/** The files of a link's QR code, under its page's path. */
export const LINK_QR = { svg: 'qr.svg', png: 'qr.png' } as const;

/** The link's page showing a payment's receipt: where the bank's return leads a link with no return URL. */
export const linkReceiptPath = (code: string, statusToken: string): string =>
  `${linkPath(code)}?${new URLSearchParams({ [STATUS_QUERY_PARAM]: statusToken }).toString()}`;

/** A link as the API shows it; `origin`: where browsers reach this proxy, when known. */
export function linkView(link: LinkRecord, origin: string | undefined, now = Date.now()): LinkView {
  const url = origin === undefined ? null : origin + linkPath(link.code);
  return {
    code: link.code,
    kind: link.kind,
    url,
    qr: url === null ? null : { svg: `${url}/${LINK_QR.svg}`, png: `${url}/${LINK_QR.png}` },
    title: link.title,
    description: link.description,
    amount: link.amount,
    openAmount: link.amount === null ? { min: link.minAmount!, max: link.maxAmount! } : null,
    currencyCode: link.currencyCode,
    reference: link.reference,
    expiresAt: iso(link.expiresAt),
    maxUses: link.maxUses,
    maxTotal: link.maxTotal,
    language: link.language as LinkView['language'],
    returnUrl: link.returnUrl,
    state: link.state,
    // Whether the smallest payment it takes would be taken now.
    status: decideUse(link, link.amount ?? link.minAmount!, now) ?? 'active',
    createdBy: link.createdBy,
    createdAt: iso(link.createdAt)!,
    updatedAt: iso(link.updatedAt)!,
    payments: { count: link.paidUses, total: link.paidTotal, lastPaidAt: iso(link.lastPaidAt) },
    pending: { count: link.heldUses, total: link.heldTotal },
  };
}

/** One use of a link as its payment: a held use is a payment under way. */
export function linkPaymentView(use: LinkUse, currencyCode: string): LinkPaymentView {
  return {
    checkoutId: use.checkoutId,
    number: use.n,
    reference: use.reference,
    amount: use.amount,
    currencyCode,
    state: use.state === 'held' ? 'pending' : use.state,
    createdAt: iso(use.createdAt)!,
    settledAt: iso(use.settledAt),
    transactionId: use.transactionId,
  };
}

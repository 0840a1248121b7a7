/**
 * Payment links (docs/links.md): what the merchant's server or an operator sends to make one, and
 * what the API answers about links and their payments. The shape is checked here; what depends on the
 * shop's settings (its open-amount bounds, its return URLs) is checked by the proxy's links feature.
 */
import { z } from 'zod';
import { REFERENCE_MAX, REFERENCE_PATTERN } from './pay.ts';
import { moneySchema, pageLimitSchema, shopCurrencySchema } from './proxy-api.ts';

/** A link made to share, or one an operator made at a till for one customer (counter mode). */
export const LINK_KINDS = ['link', 'counter'] as const;

/** The languages of the link's page: those of the elements. */
export const LINK_LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;

/** Where a reference template puts the use's number. */
export const LINK_COUNTER = '{n}';
/** The room a template keeps for its number: a link is used at most 999,999,999 times. */
export const LINK_COUNTER_DIGITS = 9;

const noControls = (value: string) => !/\p{Cc}/u.test(value.replaceAll('\n', ''));

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(max, `${field} must be at most ${max} characters`)
    .refine(noControls, `${field} must not contain control characters`);

/** `INV-{n}`: the payment's reference, with the use's number where `{n}` stands (at most once). */
export const referenceTemplateSchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'reference is required' : 'reference must be a string') })
  .min(1, 'reference must not be empty')
  .refine(
    (value) => value.split(LINK_COUNTER).length <= 2,
    `reference may hold ${LINK_COUNTER} (the use's number) at most once`,
  )
  .refine((value) => {
    const rest = value.replace(LINK_COUNTER, '');
    return rest === '' || REFERENCE_PATTERN.test(rest);
  }, `reference may hold only letters, digits, spaces and / - ? : ( ) . , ' +, and ${LINK_COUNTER} once`)
  .refine(
    (value) => value.replace(LINK_COUNTER, '9'.repeat(LINK_COUNTER_DIGITS)).length <= REFERENCE_MAX,
    `reference must be at most ${REFERENCE_MAX} characters, counting ${LINK_COUNTER} as ${LINK_COUNTER_DIGITS} digits`,
  );

export const newLinkSchema = z
  .strictObject({
    title: text('title', 80).pipe(z.string().min(1, 'title must not be empty')),
    description: text('description', 500).default(''),
    /** A fixed amount; or, with `openAmount`, the customer types it. One of the two. */
    amount: moneySchema.optional(),
    /** The customer types the amount, within these bounds (each defaults to the shop's KASSA_OPEN_AMOUNT bound). */
    openAmount: z
      .strictObject(
        { min: moneySchema.optional(), max: moneySchema.optional() },
        { error: 'openAmount must be an object' },
      )
      .optional(),
    currencyCode: shopCurrencySchema,
    reference: referenceTemplateSchema,
    /** After this moment (ISO 8601) it takes no payment. */
    expiresAt: z.iso.datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date and time' }).optional(),
    /** Payments it takes at most: 1 for a single-use link; absent: no cap. */
    maxUses: z
      .number({ error: 'maxUses must be a whole number' })
      .int('maxUses must be a whole number')
      .min(1, 'maxUses must be at least 1')
      .max(999_999_999, 'maxUses must be at most 999999999')
      .optional(),
    /** The total it takes at most, in its currency; absent: no cap. */
    maxTotal: moneySchema.optional(),
    language: z.enum(LINK_LANGUAGES, { error: `language must be one of ${LINK_LANGUAGES.join(', ')}` }).optional(),
    /** The shop's page to go back to after paying (one of KASSA_RETURN_URLS); absent: the link's receipt page. */
    returnUrl: z
      .string({ error: 'returnUrl must be a string' })
      .max(2048, 'returnUrl must be at most 2048 characters')
      .optional(),
  })
  .refine((link) => (link.amount === undefined) !== (link.openAmount === undefined), {
    error: 'Give either amount (a fixed amount) or openAmount (the customer types it), not both',
    path: ['amount'],
  })
  .meta({ id: 'NewLink' });
export type NewLink = z.output<typeof newLinkSchema>;
export type NewLinkRequest = z.input<typeof newLinkSchema>;

export const LINK_STATUSES = ['active', 'paused', 'ended', 'expired', 'used-up', 'total-reached'] as const;

/** A link as the merchant and the operators see it, with what it has taken. */
export const linkSchema = z
  .object({
    code: z.string(),
    /** `link`: made to share; `counter`: made by an operator at a till for one customer (docs/links.md, counter mode). */
    kind: z.enum(LINK_KINDS),
    /** The link's page on this proxy, where KASSA_PUBLIC_URL (or a loopback request) tells its address; else null. */
    url: z.string().nullable(),
    /** The link's QR code, to print or send: an SVG and a PNG image of its url; null where url is. */
    qr: z.object({ svg: z.string(), png: z.string() }).nullable(),
    title: z.string(),
    description: z.string(),
    /** The fixed amount; null when the customer types it (`openAmount`). */
    amount: z.string().nullable(),
    openAmount: z.object({ min: z.string(), max: z.string() }).nullable(),
    currencyCode: z.string(),
    reference: z.string(),
    expiresAt: z.string().nullable(),
    maxUses: z.number().int().nullable(),
    maxTotal: z.string().nullable(),
    language: z.enum(LINK_LANGUAGES).nullable(),
    returnUrl: z.string().nullable(),
    /** As the merchant set it: active, paused or ended. */
    state: z.enum(['active', 'paused', 'ended']),
    /** Whether a customer can pay it now, or why not (its state, its expiry, its caps counting payments under way). */
    status: z.enum(LINK_STATUSES),
    createdBy: z.object({ kind: z.enum(['operator', 'merchant-key']), id: z.string() }),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** Its payments completed: how many, their total, the last one's time. */
    payments: z.object({ count: z.number().int(), total: z.string(), lastPaidAt: z.string().nullable() }),
    /** Payments under way (customers at their bank), each holding a use until it ends. */
    pending: z.object({ count: z.number().int(), total: z.string() }),
  })
  .meta({ id: 'Link' });
export type LinkView = z.infer<typeof linkSchema>;

export const linkListSchema = z
  .object({ links: z.array(linkSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'LinkList' });
export type LinkList = z.infer<typeof linkListSchema>;

/** A page of a list of links or of a link's payments. */
export const linkPageQuerySchema = z.strictObject({
  limit: pageLimitSchema,
  cursor: z.string({ error: 'cursor must be a string' }).max(200, 'cursor is not one this list returned').optional(),
});

/** A page of the list of links, of one kind when `kind` is given. */
export const linkListQuerySchema = linkPageQuerySchema.extend({
  kind: z.enum(LINK_KINDS, { error: `kind must be one of ${LINK_KINDS.join(', ')}` }).optional(),
});

/** One customer's payment of a link: the checkout made for it, and how it ended. */
export const linkPaymentSchema = z
  .object({
    checkoutId: z.string(),
    /** The use's number, `{n}` of the reference. */
    number: z.number().int(),
    reference: z.string(),
    amount: z.string(),
    currencyCode: z.string(),
    /** pending: under way (its use held); paid; released: ended unpaid (its use given back). */
    state: z.enum(['pending', 'paid', 'released']),
    createdAt: z.string(),
    settledAt: z.string().nullable(),
    transactionId: z.string().nullable(),
  })
  .meta({ id: 'LinkPayment' });
export type LinkPaymentView = z.infer<typeof linkPaymentSchema>;

export const linkPaymentListSchema = z
  .object({ payments: z.array(linkPaymentSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'LinkPaymentList' });

/** The customer starts paying a link: the amount they typed, for a link that takes one. */
export const startLinkPaymentSchema = z
  .strictObject({ amount: moneySchema.optional() })
  .meta({ id: 'StartLinkPayment' });

/** Why a link takes no payment now, as its page says it: a title and a line. */
export type LinkRefusalReason = Exclude<(typeof LINK_STATUSES)[number], 'active'>;

/** What a link's page tells its script (link-page/), in a JSON block the server writes. */
export interface LinkPageData {
  code: string;
  title: string;
  /** A customer may start paying it; false: it takes no more, and the page shows only this tab's own checkout. */
  payable: boolean;
  /** The page's language and the link's currency, in which the script formats amounts. */
  language: string;
  currencyCode: string;
  /** The customer types the amount, in the page's form, within these bounds (as they are now); null: fixed. */
  openAmount: { min: string; max: string } | null;
  /** Where the bank sends the customer back (the link's return URL); null: this page, with the receipt. */
  returnUrl: string | null;
  /** Back from the bank: the checkout whose payment (and receipt) the page shows; null otherwise. */
  receiptOf: string | null;
  words: {
    /** An amount the link does not take: "Enter an amount from {min} to {max}." */
    outOfBounds: string;
    /** Why the payment could not be started (the proxy unreachable, refused or busy). */
    failed: string;
    /** Under a receipt: keep it. */
    keep: string;
    refusals: Record<LinkRefusalReason, [title: string, text: string]>;
  };
}

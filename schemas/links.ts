/**
 * Payment links (docs/links.md): what the merchant's server or an operator sends to make one, and
 * what the API answers about links and their payments. The shape is checked here; what depends on the
 * shop's settings (its open-amount bounds, its return URLs) is checked by the proxy's links feature.
 */
import { z } from 'zod';
import { REFERENCE_MAX, REFERENCE_PATTERN } from './pay.ts';
import { moneySchema, shopCurrencySchema } from './proxy-api.ts';

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

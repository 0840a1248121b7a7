/**
 * Counter mode (docs/links.md): an operator at a till asks for one customer's payment, which the proxy
 * makes as a single-use link of that amount, and follows it until it is paid.
 */
import { z } from 'zod';
import { moneySchema } from './proxy-api.ts';

/** What the operator typed: the amount (in the counter's currency, KASSA_COUNTER) and the note the customer sees. */
export const newCounterPaymentSchema = z
  .strictObject({
    amount: moneySchema,
    /** The link's title on the customer's phone: what is paid for ("Table 4", "2 coffees"). */
    note: z
      .string({ error: 'note must be a string' })
      .trim()
      .min(1, 'note must not be empty')
      .max(80, 'note must be at most 80 characters')
      .refine((value) => !/\p{Cc}/u.test(value), 'note must not contain control characters'),
  })
  .meta({ id: 'NewCounterPayment' });
export type NewCounterPayment = z.output<typeof newCounterPaymentSchema>;

/**
 * Where a counter payment is, as the counter shows it: waiting for the customer to scan the code;
 * opened (its page open on their phone); authorising (at their bank); paid; failed (the bank refused
 * it: the customer may try again on their phone, or the operator asks anew); cancelled (ended by the
 * operator before anyone paid); expired (nobody paid it in time).
 */
export const COUNTER_STATES = ['waiting', 'opened', 'authorising', 'paid', 'failed', 'cancelled', 'expired'] as const;
export type CounterState = (typeof COUNTER_STATES)[number];

/** After these the counter payment changes no more: its stream ends. */
export const FINAL_COUNTER_STATES: readonly CounterState[] = ['paid', 'cancelled', 'expired'];

export const counterPaymentSchema = z
  .object({
    /** The link's code (`GET /api/operator/links/{code}` reads it as a link). */
    code: z.string(),
    /** The link's page, which the QR code holds; null where the proxy does not know its own address (KASSA_PUBLIC_URL). */
    url: z.string().nullable(),
    /** The QR code of `url` (SVG, then PNG); null where `url` is. */
    qr: z.object({ svg: z.string(), png: z.string() }).nullable(),
    amount: z.string(),
    currencyCode: z.string(),
    note: z.string(),
    /** The payment's reference, as the operators' search and the bank statement show it. */
    reference: z.string(),
    state: z.enum(COUNTER_STATES),
    /** The payment, once the customer started one at their bank. */
    transactionId: z.string().nullable(),
    /** After this moment nobody can start paying it. */
    expiresAt: z.string(),
    /** The operator who asked for it (their account id). */
    createdBy: z.string(),
  })
  .meta({ id: 'CounterPayment' });
export type CounterPaymentView = z.infer<typeof counterPaymentSchema>;

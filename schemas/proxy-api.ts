/**
 * The proxy's own HTTP API. The proxy validates with these schemas, its OpenAPI document is generated
 * from them, and the widget and the extension import their inferred types (types only: no zod in the
 * browser bundle).
 */
import { z } from 'zod';
import { compareDecimals, isDecimal, numberToDecimal } from '../lib/money.ts';
import { eventEndpointSchema } from './event-endpoint.ts';
import { AMOUNT_LIMITS, environmentSchema, isPaymentCurrency, PAYMENT_CURRENCIES, referenceSchema } from './pay.ts';
import { chainListSchema, prepareReforgeRequestSchema } from './reforge.ts';

/** A payment amount in major units: a decimal string ("100.50"), or a JSON number, kept as a string. */
export const moneySchema = z
  .union([z.string(), z.number()], {
    error: (iss) =>
      iss.input === undefined ? 'amount is required' : 'amount must be a decimal string such as "100.50"',
  })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? numberToDecimal(value) : value.trim();
    if (text === undefined || !isDecimal(text, AMOUNT_LIMITS.fractionDigits)) {
      ctx.addIssue({
        code: 'custom',
        message: `amount must be a positive decimal with at most ${AMOUNT_LIMITS.fractionDigits} decimal places`,
      });
      return z.NEVER;
    }
    if (compareDecimals(text, AMOUNT_LIMITS.min) < 0 || compareDecimals(text, AMOUNT_LIMITS.max) > 0) {
      ctx.addIssue({ code: 'custom', message: `amount must be from ${AMOUNT_LIMITS.min} to ${AMOUNT_LIMITS.max}` });
      return z.NEVER;
    }
    return text;
  });

export const METADATA_JSON_MAX = 2048;

export const errorSchema = z.object({ error: z.string(), details: z.unknown().optional() }).meta({ id: 'Error' });
export type ApiError = z.infer<typeof errorSchema>;

// ---- checkouts (merchant server) ----

/** A checkout's currency, one the payment service settles; a refusal lists them (the upstream's own words do not). */
export const shopCurrencySchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'currencyCode is required' : 'currencyCode must be a string') })
  .refine(isPaymentCurrency, {
    error: (iss) =>
      `Invalid currencyCode: ${String(iss.input).slice(0, 16)}. This shop accepts ${PAYMENT_CURRENCIES.join(' and ')}`,
  })
  // The OpenAPI document lists them (an enum); the type stays a string, as callers hold codes in strings.
  .meta({ id: 'CurrencyCode', description: 'A currency the payment service settles', enum: PAYMENT_CURRENCIES });

export const createCheckoutRequestSchema = z
  .strictObject({
    amount: moneySchema,
    currencyCode: shopCurrencySchema,
    reference: referenceSchema,
    metadata: z
      .record(z.string(), z.unknown(), { error: 'metadata must be a JSON object' })
      .refine(
        (value) => JSON.stringify(value).length <= METADATA_JSON_MAX,
        `metadata must serialise to at most ${METADATA_JSON_MAX} characters`,
      )
      .optional(),
  })
  .meta({ id: 'CreateCheckoutRequest' });
export type CreateCheckoutRequest = z.input<typeof createCheckoutRequestSchema>;

export const CHECKOUT_STATES = ['open', 'pending', 'paid', 'expired'] as const;
export type CheckoutState = (typeof CHECKOUT_STATES)[number];

export const checkoutSchema = z
  .object({
    checkoutId: z.string(),
    amount: z.string(),
    currencyCode: z.string(),
    reference: z.string(),
    expiresAt: z.string(),
    /** open: can be paid; pending: a payment is under way; paid; expired. */
    state: z.enum(CHECKOUT_STATES),
    environment: environmentSchema,
  })
  .meta({ id: 'Checkout' });
export type CheckoutView = z.infer<typeof checkoutSchema>;

/**
 * What the merchant's server sees of a checkout (its key on GET /api/checkouts/{id}, the answer to
 * POST /api/checkouts, and the `data` of checkout events): the customer's view, the merchant's own
 * metadata, and the payment that settled it.
 */
export const merchantCheckoutSchema = checkoutSchema
  .extend({
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
    /** The checkout's latest payment attempt, once one has been made. */
    transactionId: z.string().nullable(),
    /** When its payment completed: set once the checkout is paid. */
    paidAt: z.string().nullable(),
  })
  .meta({ id: 'MerchantCheckout' });
export type MerchantCheckout = z.infer<typeof merchantCheckoutSchema>;

export const createCheckoutResponseSchema = merchantCheckoutSchema.meta({ id: 'CreatedCheckout' });

// ---- payments (browser) ----

const returnUrlField = z
  .string({ error: 'returnUrl must be a string' })
  .max(2048, 'returnUrl must be at most 2048 characters')
  .optional();

/** Pay a checkout the merchant's server created; the amount comes from it, never from the browser. */
export const checkoutPaymentRequestSchema = z
  .strictObject({
    checkoutId: z.string({ error: 'checkoutId is required' }).min(1, 'checkoutId is required').max(100),
    returnUrl: returnUrlField,
  })
  .meta({ id: 'CheckoutPaymentRequest' });

/** Only where the merchant enabled open amounts (KASSA_OPEN_AMOUNT), within its bounds. */
export const openAmountPaymentRequestSchema = z
  .strictObject({
    amount: moneySchema,
    // The one currency of KASSA_OPEN_AMOUNT: the proxy's document lists it in place of the settled ones.
    currencyCode: shopCurrencySchema.meta({
      id: 'OpenAmountCurrencyCode',
      description: 'The currency customers choose amounts in (KASSA_OPEN_AMOUNT)',
      enum: PAYMENT_CURRENCIES,
    }),
    reference: referenceSchema,
    returnUrl: returnUrlField,
  })
  .meta({ id: 'OpenAmountPaymentRequest' });

export const createPaymentRequestSchema = z
  .union([checkoutPaymentRequestSchema, openAmountPaymentRequestSchema])
  .meta({ id: 'CreatePaymentRequest' });
export type CreatePaymentRequest = z.input<typeof createPaymentRequestSchema>;

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:-]{8,255}$/;

export const createPaymentResponseSchema = z
  .object({
    transactionId: z.string(),
    flowUrl: z.string(),
    status: z.string(),
    /** The capability to read this payment's status; keep it with the customer only. */
    statusToken: z.string(),
    environment: environmentSchema,
  })
  .meta({ id: 'CreatedPayment' });
export type CreatedPayment = z.infer<typeof createPaymentResponseSchema>;

/** What the customer may see of their payment, by statusToken. */
export const paymentStatusSchema = z
  .object({
    transactionId: z.string(),
    status: z.string(),
    networkStatus: z.string().nullable(),
    amount: z.string(),
    currencyCode: z.string(),
    reference: z.string(),
    environment: environmentSchema,
    checkoutId: z.string().nullable(),
    /** The payment failed and its checkout can still be paid with a new attempt. */
    retryable: z.boolean(),
    initiatedAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    /** The customer's bank, once they chose it: the payment service's identifier. */
    providerId: z.string().nullable(),
    /** The customer's bank by name, for the receipt (the identifier when Kassa does not know the bank). */
    bankName: z.string().nullable().default(null),
    /** The payment network's identifier. */
    networkPaymentId: z.string().nullable(),
    /** The transfer's end-to-end identifier: the reference a customer quotes to their bank (the receipt's). */
    endToEndId: z.string().nullable().default(null),
  })
  .meta({ id: 'PaymentStatus' });
export type PaymentStatusView = z.infer<typeof paymentStatusSchema>;

/** "Pay with your phone": the code of the payment's hand-off link, `<proxy>/p/<code>`, and until when it leads to the bank. */
export const handoffSchema = z.object({ code: z.string(), expiresAt: z.string() }).meta({ id: 'Handoff' });
export type Handoff = z.infer<typeof handoffSchema>;

export const publicConfigSchema = z
  .object({
    environment: environmentSchema,
    openAmount: z.object({ min: z.string(), max: z.string(), currencyCode: z.string() }).nullable(),
  })
  .meta({ id: 'PublicConfig' });
export type PublicConfig = z.infer<typeof publicConfigSchema>;

// ---- operator ----

export const operatorPaymentSchema = paymentStatusSchema
  .extend({
    networkPaymentId: z.string().nullable(),
    paymentRail: z.string().nullable(),
    providerId: z.string().nullable(),
    lastCheckedAt: z.string().nullable(),
  })
  .meta({ id: 'OperatorPayment' });
export type OperatorPayment = z.infer<typeof operatorPaymentSchema>;

/** `limit` of the operator's paged lists. */
export const pageLimitSchema = z.coerce
  .number({ error: 'limit must be a whole number from 1 to 200' })
  .int('limit must be a whole number from 1 to 200')
  .min(1, 'limit must be a whole number from 1 to 200')
  .max(200, 'limit must be a whole number from 1 to 200')
  .default(50);

export const paymentListQuerySchema = z.object({
  status: z
    .string()
    .regex(/^[A-Z_]{1,32}$/, 'status must be an upper-case status such as PENDING')
    .optional(),
  checkoutId: z.string().max(100, 'checkoutId must be at most 100 characters').optional(),
  reference: referenceSchema.optional(),
  /** Created at or after this moment (ISO 8601). */
  from: z.iso.datetime({ offset: true, error: 'from must be an ISO 8601 date and time' }).optional(),
  /** Created before this moment (ISO 8601). */
  to: z.iso.datetime({ offset: true, error: 'to must be an ISO 8601 date and time' }).optional(),
  minAmount: z
    .string()
    .refine((value) => isDecimal(value), 'minAmount must be a decimal amount such as 10.50')
    .optional(),
  maxAmount: z
    .string()
    .refine((value) => isDecimal(value), 'maxAmount must be a decimal amount such as 10.50')
    .optional(),
  limit: pageLimitSchema,
  cursor: z.string().max(200).optional(),
});
export type PaymentListQuery = z.output<typeof paymentListQuerySchema>;

export const unverifiablePaymentSchema = z
  .object({
    payment: operatorPaymentSchema,
    /** Why Kassa cannot ask the payment service about it. */
    reason: z.string(),
    since: z.string(),
    /** The last webhook Kassa received for it (its public fields): what the service last said. */
    lastWebhook: z.object({ receivedAt: z.string(), event: z.record(z.string(), z.unknown()) }).nullable(),
  })
  .meta({ id: 'UnverifiablePayment' });
export type UnverifiablePayment = z.infer<typeof unverifiablePaymentSchema>;

export const unverifiableListSchema = z
  .object({ payments: z.array(unverifiablePaymentSchema) })
  .meta({ id: 'UnverifiableList' });

export const resolvePaymentRequestSchema = z
  .strictObject({
    status: z.enum(['COMPLETED', 'FAILED'], { error: 'status must be COMPLETED or FAILED' }),
    note: z
      .string({ error: 'note is required: say what the bank statement shows' })
      .trim()
      .min(3, 'note is required: say what the bank statement shows')
      .max(500, 'note must be at most 500 characters'),
  })
  .meta({ id: 'ResolvePaymentRequest' });

export const resolutionSchema = z
  .object({ previousStatus: z.string(), status: z.string(), note: z.string(), resolvedAt: z.string() })
  .meta({ id: 'Resolution' });

export const resolvedPaymentSchema = z
  .object({ payment: operatorPaymentSchema, resolutions: z.array(resolutionSchema) })
  .meta({ id: 'ResolvedPayment' });

export const paymentListSchema = z
  .object({ payments: z.array(operatorPaymentSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'PaymentList' });
export type PaymentList = z.infer<typeof paymentListSchema>;

export const UPSTREAM_STATES = [
  'ok',
  'unknown',
  'invalid_client',
  'account_frozen',
  'unreachable',
  'rejected',
] as const;

export const healthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    uptimeSeconds: z.number(),
    store: z.enum(['ok', 'unavailable']),
    payments: z.object({
      state: z.enum(UPSTREAM_STATES),
      environment: environmentSchema.nullable(),
      detail: z.string().nullable(),
      freezeReason: z.string().nullable(),
      frozenAt: z.string().nullable(),
      since: z.string().nullable(),
    }),
    orders: z.object({ state: z.enum(UPSTREAM_STATES), detail: z.string().nullable() }),
    reforge: z.object({ state: z.enum(UPSTREAM_STATES), detail: z.string().nullable() }),
    /**
     * Where the merchant's events go, each with whether they go there now (a disabled one makes the
     * status degraded); null when the proxy sends none, or while the store cannot be read.
     */
    events: z.object({ endpoints: z.array(eventEndpointSchema) }).nullable(),
    /** Upstream requests in the last minute, fleet-wide; null while the store cannot be read. */
    budgets: z
      .object({
        tokenRequests: z.object({ used: z.number(), limit: z.number() }),
        paymentRequests: z.object({ used: z.number(), limit: z.number() }),
      })
      .nullable(),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;

// ---- bridge (browser) ----

export const bridgeNetworkSchema = z.enum(['main', 'test'], { error: 'network must be main or test' });

/** The browser may not name an RPC URL for the service to call: the proxy omits sourceRpcUrl. */
export const bridgePrepareRequestSchema = prepareReforgeRequestSchema
  .omit({ sourceRpcUrl: true })
  .meta({ id: 'BridgePrepareRequest' });
export type BridgePrepareRequest = z.input<typeof bridgePrepareRequestSchema>;

export const bridgePrepareResponseSchema = z
  .object({
    tx: z
      .string()
      .regex(/^0x02[0-9a-f]*$/)
      .describe('the unsigned EIP-1559 transaction that burns on the source chain (docs/upstream.md)'),
  })
  .meta({ id: 'BridgePrepareResponse' });

export const bridgeChainsSchema = chainListSchema.meta({ id: 'BridgeChains' });

// ---- probes and the payment service's webhook ----

export const livenessSchema = z.object({ ok: z.literal(true) }).meta({ id: 'Liveness' });

/** Which store the proxy keeps its state in, and on Redis whether a Redis restart would lose data. */
export const storeInfoSchema = z
  .object({
    backend: z.enum(['sqlite', 'redis', 'postgres']),
    /** Redis only: aof (every write), rdb (snapshots), none, or unknown (Redis does not say). */
    persistence: z.enum(['aof', 'rdb', 'none', 'unknown']).optional(),
    /** What a restart of the store would cost, when it would cost something. */
    warning: z.string().optional(),
  })
  .meta({ id: 'StoreInfo' });
export type StoreInfo = z.infer<typeof storeInfoSchema>;

/** `/readyz`: ready, or why not (the store, refused credentials, a frozen account, an unreachable service). */
export const readinessSchema = z
  .discriminatedUnion('ready', [
    z.object({ ready: z.literal(true), store: storeInfoSchema }),
    z.object({
      ready: z.literal(false),
      store: storeInfoSchema,
      reason: z.enum(['store_unavailable', 'invalid_client', 'account_frozen', 'upstream_unreachable']),
      detail: z.string().nullable().optional(),
      freezeReason: z.string().nullable().optional(),
      frozenAt: z.string().nullable().optional(),
    }),
  ])
  .meta({ id: 'Readiness' });

export const webhookReceiptSchema = z.object({ received: z.literal(true) }).meta({ id: 'WebhookReceipt' });

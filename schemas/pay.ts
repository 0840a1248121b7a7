/**
 * Wire formats of the payment initiation service (seeds/000_*.txt). The emulator validates requests
 * with these schemas and the proxy parses responses with them, so both sides agree by construction.
 * Bounds the seed leaves open are decisions recorded in docs/upstream.md.
 */
import { z } from 'zod';
import { numberToDecimal, isDecimal } from '../lib/money.ts';
import { isHttpsOrLocalHttp } from '../lib/private-http.ts';

export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export const environmentSchema = z.enum(ENVIRONMENTS);
export type Environment = z.infer<typeof environmentSchema>;

/** Statuses the service is known to use; readers accept others and treat them as not final. */
export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type KnownPaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED']);
export const isTerminalStatus = (status: string): boolean => TERMINAL_STATUSES.has(status);

/**
 * networkStatus values: the three the real service is seen to send, and the two the emulator adds
 * before the bank has answered (docs/upstream.md). Readers show unknown values as they come.
 */
export const NETWORK_STATUSES = [
  'INITIATED',
  'AUTHORISED',
  'PAYMENT_EXECUTED_CREDITED',
  'CANCELLED',
  'REJECTED',
] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/** The currencies the service settles, each on its rail (values seen: SEPA and UK Faster Payments). */
export const CURRENCY_RAILS = { EUR: 'SepaCreditTransfer', GBP: 'UkFasterPayments' } as const;
export type PaymentCurrency = keyof typeof CURRENCY_RAILS;
export const PAYMENT_CURRENCIES = Object.keys(CURRENCY_RAILS) as PaymentCurrency[];
export const isPaymentCurrency = (code: unknown): code is PaymentCurrency =>
  typeof code === 'string' && Object.hasOwn(CURRENCY_RAILS, code);

/** Amount bounds in major units; both currencies have two minor digits. */
export const AMOUNT_LIMITS = { min: '0.01', max: '1000000', fractionDigits: 2 } as const;
export const REFERENCE_MAX = 35;
/** SEPA's basic Latin character set, which every rail carries unchanged. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9/\-?:().,'+ ]+$/;
export const METADATA_MAX = 4096;
export const URL_MAX = 2048;

/** `privateHttp`: plain http to a private-network address too (lib/private-http.ts), for a local sandbox. */
export const httpsOrLoopbackUrl = (field: string, privateHttp = false) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .max(URL_MAX, `${field} must be at most ${URL_MAX} characters`)
    .refine(
      (value) => isHttpsOrLocalHttp(value, privateHttp),
      `${field} must be an absolute https URL (plain http only for loopback${privateHttp ? ' and private-network' : ''} addresses)`,
    );

/** A decimal amount in major units, as the payment wire carries it: a JSON number. */
export const paymentAmountSchema = z
  .number({ error: (iss) => (iss.input === undefined ? 'amount is required' : 'amount must be a number') })
  .refine((value) => {
    const text = numberToDecimal(value);
    return text !== undefined && isDecimal(text, AMOUNT_LIMITS.fractionDigits);
  }, `amount must be a positive decimal with at most ${AMOUNT_LIMITS.fractionDigits} decimal places`)
  .refine((value) => value >= Number(AMOUNT_LIMITS.min), `amount must be at least ${AMOUNT_LIMITS.min}`)
  .refine((value) => value <= Number(AMOUNT_LIMITS.max), `amount must be at most ${AMOUNT_LIMITS.max}`);

export const currencyCodeSchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'currencyCode is required' : 'currencyCode must be a string') })
  .refine(isPaymentCurrency, { error: (iss) => `Invalid currencyCode: ${String(iss.input).slice(0, 16)}` });

export const referenceSchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'reference is required' : 'reference must be a string') })
  .min(1, 'reference must not be empty')
  .max(REFERENCE_MAX, `reference must be at most ${REFERENCE_MAX} characters`)
  .regex(REFERENCE_PATTERN, "reference may hold only letters, digits, spaces and / - ? : ( ) . , ' +");

// ---- POST /v1/auth/token ----

export const tokenRequestSchema = z.object({
  grant_type: z.string(),
  client_secret: z.string(),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
  environment: environmentSchema,
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'unsupported_grant_type',
  'invalid_client',
  'account_frozen',
  'rate_limit_exceeded',
] as const;

export const tokenErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  freeze_reason: z.string().optional(),
  frozen_at: z.string().optional(),
});
export type TokenError = z.infer<typeof tokenErrorSchema>;

// ---- POST /v1/payments/initiate ----

const initiateRequest = (privateHttp: boolean) =>
  z.object({
    redirectUrl: httpsOrLoopbackUrl('redirectUrl', privateHttp),
    amount: paymentAmountSchema,
    currencyCode: currencyCodeSchema,
    reference: referenceSchema,
    metadata: z
      .string({ error: 'metadata must be a string' })
      .max(METADATA_MAX, `metadata must be at most ${METADATA_MAX} characters`)
      .optional(),
  });
const INITIATE_REQUESTS = [initiateRequest(false), initiateRequest(true)] as const;
/**
 * The body of an initiate. `privateHttp` takes a `redirectUrl` of plain http to a private-network
 * address as well: only a local sandbox tried with a phone (KASSA_ALLOW_PRIVATE_HTTP, --allow-private-http).
 */
export const initiateRequestSchema = (privateHttp = false) => INITIATE_REQUESTS[privateHttp ? 1 : 0];
export type InitiateRequest = z.infer<ReturnType<typeof initiateRequestSchema>>;
/** What a caller may pass before validation narrows it (currencyCode is any string there). */
export type InitiateRequestInput = z.input<ReturnType<typeof initiateRequestSchema>>;

const isoTimestamp = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'expected an ISO 8601 timestamp');

export const initiateResponseSchema = z.object({
  transactionId: z.uuid(),
  networkPaymentId: z.string(),
  flowUrl: z.url(),
  status: z.string(),
  amount: z.number(),
  currencyCode: z.string(),
  reference: z.string(),
  endToEndId: z.string(),
  initiationTimestamp: isoTimestamp,
});
export type InitiateResponse = z.infer<typeof initiateResponseSchema>;

// ---- GET /v1/payments/{transactionId} ----

/** Fields the network fills in later are null until then (docs/upstream.md). */
export const paymentRecordSchema = z.object({
  transactionId: z.uuid(),
  networkPaymentId: z.string(),
  amount: z.number(),
  currencyCode: z.string(),
  status: z.string(),
  networkStatus: z.string().nullable(),
  paymentRail: z.string().nullable(),
  reference: z.string(),
  endToEndId: z.string(),
  redirectUrl: z.string(),
  flowUrl: z.string(),
  providerId: z.string().nullable(),
  metadata: z.string().nullable(),
  initiationTimestamp: isoTimestamp,
  updatedTimestamp: isoTimestamp,
  completedTimestamp: isoTimestamp.nullable(),
});
export type PaymentRecord = z.infer<typeof paymentRecordSchema>;

/** Every payment endpoint error: one human-readable string. */
export const paymentErrorSchema = z.object({ error: z.string() });
export type PaymentError = z.infer<typeof paymentErrorSchema>;

export const GENERIC_PROCESSING_ERROR = 'An error occurred while processing the payment';

// ---- payment.status_updated webhook ----

export const webhookEventSchema = z.object({
  event: z.literal('payment.status_updated'),
  transactionId: z.string(),
  networkPaymentId: z.string(),
  status: z.string(),
  amount: z.number(),
  currencyCode: z.string(),
  timestamp: isoTimestamp,
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

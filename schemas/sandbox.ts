/**
 * The emulator's control API (`/_sandbox`): it stands in for the upstream dashboards and lets tests
 * stage scenarios. Not part of any real service; documented in docs/upstream.md.
 */
import { z } from 'zod';
import { evmAddressSchema } from './orders.ts';
import { environmentSchema, httpsOrLoopbackUrl } from './pay.ts';

export const SANDBOX_SERVICES = ['pay', 'orders', 'reforge'] as const;
export type SandboxService = (typeof SANDBOX_SERVICES)[number];

const isoDate = z
  .string({ error: 'expiresAt must be an ISO 8601 timestamp or null' })
  .refine((value) => !Number.isNaN(Date.parse(value)), 'expiresAt must be an ISO 8601 timestamp or null');

const text = (field: string, max: number) =>
  z.string({ error: `${field} must be a string` }).max(max, `${field} must be at most ${max} characters`);

export const createKeyRequestSchema = z.strictObject({
  environment: environmentSchema.default('sandbox'),
  webhookUrl: httpsOrLoopbackUrl('webhookUrl').nullable().default(null),
  name: text('name', 100).min(1, 'name must not be empty').optional(),
  description: text('description', 1000).optional(),
  destination: text('destination', 64).min(1, 'destination must not be empty').optional(),
  expiresAt: isoDate.nullable().default(null),
});
export type CreateKeyRequest = z.input<typeof createKeyRequestSchema>;

export const keySummarySchema = z.object({
  keyId: z.string(),
  name: z.string(),
  description: z.string(),
  destination: z.string(),
  webhookUrl: z.string().nullable(),
  environment: environmentSchema,
  active: z.boolean(),
  revoked: z.boolean(),
  expiresAt: z.string().nullable(),
  secrets: z.number().int(),
});
export type KeySummary = z.infer<typeof keySummarySchema>;

export const createKeyResponseSchema = z.object({
  keyId: z.string(),
  clientSecret: z.string(),
  environment: environmentSchema,
  active: z.boolean(),
});

export const patchKeyRequestSchema = z
  .strictObject({
    webhookUrl: httpsOrLoopbackUrl('webhookUrl').nullable().optional(),
    name: text('name', 100).min(1, 'name must not be empty').optional(),
    description: text('description', 1000).optional(),
    expiresAt: isoDate.nullable().optional(),
    destination: text('destination', 64).min(1, 'destination must not be empty').optional(),
  })
  .refine(
    (body) => Object.keys(body).length > 0,
    'Nothing to change: send webhookUrl, name, description, expiresAt or destination',
  );
export type PatchKeyRequest = z.input<typeof patchKeyRequestSchema>;

export const expireSecretRequestSchema = z.strictObject({
  clientSecret: z.string({ error: 'clientSecret is required' }).min(1, 'clientSecret is required'),
});

export const freezeRequestSchema = z.strictObject({
  reason: z.string({ error: 'reason must be a string' }).min(1).max(100).default('unpaid_invoices'),
});

export const outcomeRequestSchema = z.strictObject({
  status: z.enum(['COMPLETED', 'FAILED'], { error: 'status must be COMPLETED or FAILED' }),
  networkStatus: z
    .string({ error: 'networkStatus must be a string' })
    .regex(/^[A-Z_]{1,64}$/, 'networkStatus must be UPPER_SNAKE_CASE')
    .optional(),
  providerId: z
    .string({ error: 'providerId must be a string' })
    .regex(/^bank_[a-z0-9_]{1,40}$/, 'providerId must look like bank_xyz')
    .optional(),
});
export type OutcomeRequest = z.input<typeof outcomeRequestSchema>;

export const FAULT_KINDS = ['429', '500', 'slow', 'reset', 'malformed'] as const;
export const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const faultRequestSchema = z.strictObject({
  service: z.enum(SANDBOX_SERVICES, { error: `service must be one of ${SANDBOX_SERVICES.join(', ')}` }),
  kind: z.enum(FAULT_KINDS, { error: `kind must be one of ${FAULT_KINDS.join(', ')}` }),
  times: z
    .number({ error: 'times must be a whole number' })
    .int('times must be a whole number')
    .min(1)
    .max(10_000)
    .default(1),
  /** Only requests below this path of the service (`/v1/payments/initiate`). */
  path: z.string({ error: 'path must be a string' }).startsWith('/', 'path must start with /').max(200).optional(),
  /** Only requests of this method (`GET`: a slow read, not the write beside it on the same path). */
  method: z.enum(FAULT_METHODS, { error: `method must be one of ${FAULT_METHODS.join(', ')}` }).optional(),
  /** "after": the request takes effect, then its answer is spoiled. */
  stage: z.enum(['before', 'after'], { error: 'stage must be before or after' }).optional(),
  /** For "slow": how long the answer is held back (default 15 s). */
  delayMs: z.number({ error: 'delayMs must be a number' }).int().min(0).max(120_000).optional(),
});
export type FaultRequest = z.output<typeof faultRequestSchema>;
export type Fault = FaultRequest & { id: number; remaining: number; stage: 'before' | 'after' };

export const clockRequestSchema = z.strictObject({
  advanceSeconds: z
    .number({ error: 'advanceSeconds must be a number' })
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3600),
});

/** `POST /_sandbox/relayer/hold` and `/release`: the chain whose incoming mints wait (or go on). */
export const relayerChainRequestSchema = z.strictObject({
  chainId: z.number({ error: 'chainId must be a number' }).int().positive().max(Number.MAX_SAFE_INTEGER),
});

/** `POST /_sandbox/relayer/refund`: a held burn, refunded on its own chain instead of minted. */
export const relayerRefundRequestSchema = z.strictObject({
  burnId: z.string({ error: 'burnId must be a string' }).regex(/^0x[0-9a-fA-F]{64}$/, 'burnId must be 32 bytes in hex'),
});

/** `POST /_sandbox/chains/{chainId}/smart-wallets`: a contract wallet (EIP-1271) for this owner key. */
export const smartWalletRequestSchema = z.strictObject({ owner: evmAddressSchema('owner') });

/** `POST /_sandbox/orders/faults`: what the issuer does with the next orders submitted. */
export const orderFaultRequestSchema = z.strictObject({
  /** `fail`: processed, then Failed with nothing minted; `hold`: Processing until released. */
  kind: z.enum(['fail', 'hold'], { error: 'kind must be "fail" or "hold"' }),
  times: z.number({ error: 'times must be a number' }).int().min(1).max(1_000).default(1),
});
export type OrderFaultRequest = z.output<typeof orderFaultRequestSchema>;

export const webhookAttemptSchema = z.object({
  id: z.number().int(),
  transactionId: z.string(),
  url: z.string(),
  attempt: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  ok: z.boolean(),
  body: z.string(),
  /** How long the service waits before the next attempt; null when none follows. */
  retryInMs: z.number().int().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

/** Requests each upstream operation received, so tests and benchmarks can count upstream load. */
export const metricsSchema = z.record(z.string(), z.number().int());
export type SandboxMetrics = z.infer<typeof metricsSchema>;

/**
 * The merchant's API keys (docs/proxy.md#merchant-keys): what each may do (its scopes), for how
 * long, and when it was last used. The secret is in the answer that makes the key, and only there.
 */
import { z } from 'zod';
import { credentialNameSchema } from './operators.ts';

/** What the merchant routes need: creating checkouts, and reading them with the merchant's view. */
export const MERCHANT_SCOPES = ['checkouts:create', 'checkouts:read'] as const;
export type MerchantScope = (typeof MERCHANT_SCOPES)[number];

export const newMerchantKeySchema = z
  .object({
    name: credentialNameSchema,
    scopes: z
      .array(z.enum(MERCHANT_SCOPES, { error: `each scope must be one of ${MERCHANT_SCOPES.join(', ')}` }), {
        error: `scopes is required: a list of ${MERCHANT_SCOPES.join(', ')}`,
      })
      .min(1, 'scopes must name at least one scope')
      .transform((scopes) => [...new Set(scopes)]),
    /** Days until it stops working; absent: until revoked. */
    expiresInDays: z
      .number({ error: 'expiresInDays must be a whole number of days' })
      .int('expiresInDays must be a whole number of days')
      .min(1, 'expiresInDays must be at least 1')
      .max(3650, 'expiresInDays must be at most 3650')
      .optional(),
  })
  .strict()
  .meta({ id: 'NewMerchantKey' });
export type NewMerchantKey = z.output<typeof newMerchantKeySchema>;

export const rollMerchantKeySchema = z
  .object({
    /** How long the old key keeps working beside the new one (24 hours); 0 ends it now. At most 30 days. */
    expiresInSeconds: z
      .number({ error: 'expiresInSeconds must be a whole number of seconds' })
      .int('expiresInSeconds must be a whole number of seconds')
      .min(0, 'expiresInSeconds must not be negative')
      .max(30 * 86_400, 'expiresInSeconds must be at most 2592000 (30 days)')
      .default(86_400),
  })
  .strict()
  .meta({ id: 'RollMerchantKey' });

export const merchantKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(MERCHANT_SCOPES)),
    /** The secret's first characters, to tell keys apart. */
    hint: z.string(),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    /** `active`, or why it opens nothing. */
    state: z.enum(['active', 'expired', 'revoked']),
    rolledFrom: z.string().nullable(),
  })
  .meta({ id: 'MerchantKey' });
export type MerchantKeyView = z.infer<typeof merchantKeySchema>;

export const merchantKeyListSchema = z.object({ keys: z.array(merchantKeySchema) }).meta({ id: 'MerchantKeyList' });

export const merchantKeyWithSecretSchema = z
  .object({ key: merchantKeySchema, secret: z.string() })
  .meta({ id: 'MerchantKeyWithSecret' });

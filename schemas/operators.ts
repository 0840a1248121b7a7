/**
 * Operators as people (issue 37): roles, permissions, credentials, device sign-in (RFC 8628) and the
 * answers of the operator's own routes. The proxy validates with these schemas and generates its
 * OpenAPI document from them; the extension and the sign-in page import their types.
 */
import { z } from 'zod';

/** From least to most: each role has every permission of the roles before it. */
export const ROLES = ['viewer', 'support', 'finance', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES, { error: `role must be one of ${ROLES.join(', ')}` });

export const PERMISSIONS = [
  'payments:read',
  'orders:read',
  'purchases:read',
  'events:read',
  'payments:resolve',
  'events:redeliver',
  'orders:write',
  'purchases:act',
  'payments:export',
  'operators:manage',
  'sessions:manage',
  'settings:manage',
  'audit:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const OPERATOR_STATES = ['invited', 'active', 'suspended'] as const;
export type OperatorState = (typeof OPERATOR_STATES)[number];

/** web: the sign-in page's cookie; device: the extension's (RFC 8628); api: a personal API token. */
export const CREDENTIAL_KINDS = ['web', 'device', 'api'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

const noControls = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value);

export const operatorNameSchema = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .refine(noControls, 'name must not contain control characters');

/** Lower-cased, so that one person has one account whatever case their address is typed in. */
export const operatorEmailSchema = z
  .string({ error: 'email is required' })
  .trim()
  .max(254, 'email must be at most 254 characters')
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'email must be an e-mail address')
  .transform((value) => value.toLowerCase());

/** The forbidden answer of an operator route: which permission was missing. */
export const permissionRefusalSchema = z
  .object({ error: z.string(), permission: z.string() })
  .meta({ id: 'PermissionRefusal' });

export const operatorMeSchema = z
  .object({
    operatorId: z.string(),
    name: z.string(),
    email: z.string(),
    /** The role this credential acts with: the owner's, or an API token's own when lower. */
    role: roleSchema,
    permissions: z.array(z.enum(PERMISSIONS)),
    credential: z.object({
      credentialId: z.string(),
      kind: z.enum(CREDENTIAL_KINDS),
      name: z.string().nullable(),
      /** When it stops working at the latest, and, for web and device credentials, when unused. */
      expiresAt: z.string(),
      idleExpiresAt: z.string().nullable(),
    }),
    /** A web session's CSRF token, to send as X-Kassa-CSRF on every write; null for bearer credentials. */
    csrfToken: z.string().nullable(),
  })
  .meta({ id: 'OperatorMe' });
export type OperatorMe = z.infer<typeof operatorMeSchema>;

// ---- device sign-in (RFC 8628) ----

/** Letters that make no words and no look-alikes, as the RFC suggests (section 6.1). */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** `XXXX-XXXX`; what a person types is read without case, spaces or dashes. */
export const userCodeSchema = z
  .string({ error: 'user_code is required' })
  .max(32, 'user_code is too long')
  .transform((value) => value.toUpperCase().replace(/[\s-]/g, ''))
  .refine((value) => new RegExp(`^[${USER_CODE_ALPHABET}]{8}$`).test(value), 'user_code is not a code Kassa gives');

const clientName = z
  .string()
  .trim()
  .min(1, 'client_name must not be empty')
  .max(100, 'client_name must be at most 100 characters')
  .refine(noControls, 'client_name must not contain control characters');

export const deviceCodeRequestSchema = z
  .object({
    /** What the person approving is shown, such as "Kassa extension on Chromium". */
    client_name: clientName.optional(),
    /** Accepted for OAuth clients that always send one; Kassa has one client. */
    client_id: z.string().max(100).optional(),
    scope: z.string().max(200).optional(),
  })
  .meta({ id: 'DeviceCodeRequest' });

export const deviceCodeSchema = z
  .object({
    device_code: z.string(),
    user_code: z.string(),
    verification_uri: z.string(),
    verification_uri_complete: z.string(),
    expires_in: z.number().int(),
    interval: z.number().int(),
  })
  .meta({ id: 'DeviceCode' });
export type DeviceCode = z.infer<typeof deviceCodeSchema>;

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

export const deviceTokenRequestSchema = z
  .object({
    grant_type: z.literal(DEVICE_GRANT_TYPE, { error: `grant_type must be ${DEVICE_GRANT_TYPE}` }),
    device_code: z.string({ error: 'device_code is required' }).min(1).max(200),
    client_id: z.string().max(100).optional(),
  })
  .meta({ id: 'DeviceTokenRequest' });

export const deviceTokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    operator: z.object({ name: z.string(), email: z.string(), role: roleSchema }),
  })
  .meta({ id: 'DeviceToken' });
export type DeviceToken = z.infer<typeof deviceTokenSchema>;

/** RFC 8628 section 3.5 and RFC 6749 section 5.2: the error codes a polling client acts on. */
export const DEVICE_TOKEN_ERRORS = [
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
  'invalid_grant',
  'invalid_request',
  'unsupported_grant_type',
] as const;
export const deviceTokenErrorSchema = z
  .object({ error: z.enum(DEVICE_TOKEN_ERRORS), error_description: z.string() })
  .meta({ id: 'DeviceTokenError' });
export type DeviceTokenError = z.infer<typeof deviceTokenErrorSchema>;

export const deviceApproveRequestSchema = z
  .strictObject({
    user_code: userCodeSchema,
    approve: z.boolean({ error: 'approve must be true or false' }),
  })
  .meta({ id: 'DeviceApproveRequest' });

export const deviceApprovalSchema = z
  .object({
    state: z.enum(['approved', 'denied']),
    clientName: z.string(),
    requestedAt: z.string(),
  })
  .meta({ id: 'DeviceApproval' });

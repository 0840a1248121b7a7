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
  'links:read',
  'payments:resolve',
  'events:redeliver',
  'counter:take',
  'orders:write',
  'purchases:act',
  'payments:export',
  'links:manage',
  'operators:manage',
  'sessions:manage',
  'settings:manage',
  'audit:read',
  'destinations:manage',
  'merchant_keys:manage',
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

/** The forbidden answer of an operator route: which permission was missing, when a role lacks one. */
export const permissionRefusalSchema = z
  .object({ error: z.string(), permission: z.string().optional() })
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

// ---- dual control ----

export const APPROVAL_KINDS = ['order.create', 'order.update', 'purchase.retry-mint', 'purchase.refund'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_STATES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'executed',
  'failed',
] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

const approvalPerson = z.object({ operatorId: z.string(), name: z.string(), role: roleSchema });
const summaryValues = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

export const approvalSchema = z
  .object({
    approvalId: z.string(),
    /** order.create, order.update, purchase.retry-mint or purchase.refund. */
    kind: z.enum(APPROVAL_KINDS),
    /** The order or purchase acted on; null for an order to create. */
    target: z.string().nullable(),
    /** What the approver reads: amount, coin, chain, wallet, purchase … */
    summary: summaryValues,
    /** The request's body, run exactly as it is once approved. */
    payload: z.record(z.string(), z.unknown()),
    /** What approving needs. */
    permission: z.enum(PERMISSIONS),
    state: z.enum(APPROVAL_STATES),
    requestedBy: approvalPerson,
    requestedAt: z.string(),
    expiresAt: z.string(),
    decidedBy: approvalPerson.nullable(),
    decidedAt: z.string().nullable(),
    reason: z.string().nullable(),
    /** What the action made (an order id, the purchase's state), or its error in words. */
    result: summaryValues.nullable(),
    /** Whether the caller may approve or reject it: pending, another person's, and their role has the permission. */
    canDecide: z.boolean(),
  })
  .meta({ id: 'Approval' });
export type ApprovalView = z.infer<typeof approvalSchema>;

export const approvalListSchema = z
  .object({ approvals: z.array(approvalSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'ApprovalList' });

export const approvalListQuerySchema = z.strictObject({
  state: z.enum(APPROVAL_STATES, { error: `state must be one of ${APPROVAL_STATES.join(', ')}` }).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number from 1 to 200' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(200, 'limit must be at most 200')
    .default(50),
  cursor: z.string().max(200).optional(),
});

const reason = z
  .string({ error: 'reason is required' })
  .trim()
  .min(1, 'reason must not be empty')
  .max(500, 'reason must be at most 500 characters')
  .refine(noControls, 'reason must not contain control characters');

export const rejectApprovalRequestSchema = z.strictObject({ reason }).meta({ id: 'RejectApprovalRequest' });
export const cancelApprovalRequestSchema = z
  .strictObject({ reason: reason.optional() })
  .meta({ id: 'CancelApprovalRequest' });

// ---- the team (admins) and one's own credentials ----

export const operatorViewSchema = z
  .object({
    operatorId: z.string(),
    name: z.string(),
    email: z.string(),
    role: roleSchema,
    /** invited: has not signed in yet; suspended: nothing of theirs works until an admin reactivates them. */
    state: z.enum(OPERATOR_STATES),
    createdAt: z.string(),
    /** An operator id, or `cli` or `setup`. */
    createdBy: z.string(),
    updatedAt: z.string(),
    /** Whether they sign in through the company's identity provider. */
    sso: z.boolean(),
  })
  .meta({ id: 'Operator' });
export type OperatorView = z.infer<typeof operatorViewSchema>;

export const operatorListSchema = z.object({ operators: z.array(operatorViewSchema) }).meta({ id: 'OperatorList' });

export const inviteOperatorRequestSchema = z
  .strictObject({ name: operatorNameSchema, email: operatorEmailSchema, role: roleSchema })
  .meta({ id: 'InviteOperatorRequest' });

export const invitedOperatorSchema = z
  .object({
    operator: operatorViewSchema,
    /** The one-time link the person opens to register their passkey: shown once, valid 72 hours. */
    invitationUrl: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'InvitedOperator' });

export const updateOperatorRequestSchema = z
  .strictObject({
    role: roleSchema.optional(),
    state: z.enum(['active', 'suspended'], { error: 'state must be active or suspended' }).optional(),
  })
  .refine((body) => body.role !== undefined || body.state !== undefined, 'Nothing to change: send role, state or both')
  .meta({ id: 'UpdateOperatorRequest' });

export const credentialViewSchema = z
  .object({
    credentialId: z.string(),
    kind: z.enum(CREDENTIAL_KINDS),
    name: z.string().nullable(),
    /** An API token's own role; null for sessions and devices, which act with their owner's. */
    role: roleSchema.nullable(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    expiresAt: z.string(),
    idleExpiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    /** Whether it still works: not revoked, not expired. */
    live: z.boolean(),
    /** Whether this request is made with it. */
    current: z.boolean(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .meta({ id: 'Credential' });
export type CredentialView = z.infer<typeof credentialViewSchema>;

export const credentialListSchema = z
  .object({ credentials: z.array(credentialViewSchema) })
  .meta({ id: 'CredentialList' });

/** What a person calls a token or a key: up to 100 characters, no control characters. */
export const credentialNameSchema = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .refine(noControls, 'name must not contain control characters');

export const createTokenRequestSchema = z
  .strictObject({
    name: credentialNameSchema,
    /** At most one's own role; one's own by default. */
    role: roleSchema.optional(),
    expiresInDays: z
      .number({ error: 'expiresInDays must be a whole number from 1 to 365' })
      .int('expiresInDays must be a whole number')
      .min(1, 'expiresInDays must be at least 1')
      .max(365, 'expiresInDays must be at most 365')
      .default(90),
  })
  .meta({ id: 'CreateTokenRequest' });

export const createdTokenSchema = z
  .object({
    /** `kassa_pat_…`: shown this once, stored only as its hash. */
    token: z.string(),
    credential: credentialViewSchema,
  })
  .meta({ id: 'CreatedToken' });

export const passkeyViewSchema = z
  .object({
    credentialId: z.string(),
    name: z.string(),
    deviceType: z.enum(['singleDevice', 'multiDevice']),
    backedUp: z.boolean(),
    transports: z.array(z.string()),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'Passkey' });

export const passkeyListSchema = z.object({ passkeys: z.array(passkeyViewSchema) }).meta({ id: 'PasskeyList' });

/**
 * The operators' sign-in (issue 37): passkeys (WebAuthn), a link's first passkey, the web session.
 * The proxy validates with these and documents them. (A person's sessions, tokens and passkeys as the
 * API lists them are in operators.ts.)
 */
import { z } from 'zod';
import { operatorEmailSchema, operatorNameSchema, roleSchema } from './operators.ts';

/** base64url, as WebAuthn's JSON encodes bytes, at most `max` characters. */
const base64url = (field: string, max: number) =>
  z
    .string({ error: `${field} is required` })
    .max(max, `${field} is too long`)
    .regex(/^[A-Za-z0-9_-]*$/, `${field} must be base64url`);

/** A WebAuthn credential id is at most 1023 bytes (WebAuthn level 3, section 5.8.3). */
const credentialId = (field: string) => base64url(field, 1366).min(1, `${field} must not be empty`);

const responseCommon = {
  id: credentialId('id'),
  rawId: credentialId('rawId'),
  type: z.literal('public-key', { error: 'type must be public-key' }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string().max(64), z.unknown()).default({}),
};

/** What `@simplewebauthn/browser`'s startAuthentication() gives: a passkey's signed answer to a challenge. */
export const authenticationResponseSchema = z
  .object({
    ...responseCommon,
    response: z.object({
      clientDataJSON: base64url('response.clientDataJSON', 4096),
      authenticatorData: base64url('response.authenticatorData', 4096),
      signature: base64url('response.signature', 2048),
      userHandle: base64url('response.userHandle', 256).optional(),
    }),
  })
  .meta({ id: 'PasskeyAssertion' });

/** What startRegistration() gives: a new passkey's public key and the authenticator's attestation. */
export const registrationResponseSchema = z
  .object({
    ...responseCommon,
    response: z.object({
      clientDataJSON: base64url('response.clientDataJSON', 4096),
      attestationObject: base64url('response.attestationObject', 32_768),
      authenticatorData: base64url('response.authenticatorData', 8192).optional(),
      transports: z.array(z.string().max(32)).max(10).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: base64url('response.publicKey', 8192).optional(),
    }),
  })
  .meta({ id: 'PasskeyAttestation' });

/** The options the browser hands to navigator.credentials (WebAuthn's JSON form), as the server made them. */
const ceremonyOptions = z.record(z.string(), z.unknown());

export const passkeyOptionsSchema = z.object({ options: ceremonyOptions }).meta({ id: 'PasskeyOptions' });

export const signinRequestSchema = z
  .strictObject({ response: authenticationResponseSchema })
  .meta({ id: 'SigninRequest' });

export const passkeyRegistrationSchema = z
  .strictObject({ response: registrationResponseSchema })
  .meta({ id: 'PasskeyRegistration' });

const passkeyName = z
  .string()
  .trim()
  .min(1, 'passkeyName must not be empty')
  .max(60, 'passkeyName must be at most 60 characters')
  .refine((value) => !/[\p{Cc}\p{Cf}]/u.test(value), 'passkeyName must not contain control characters');

/** A one-time link's token (`/operator/invite#<token>`, `/operator/setup#<token>`): 256 bits, base64url. */
const linkToken = z
  .string({ error: 'token is required' })
  .regex(/^[A-Za-z0-9_-]{43}$/, 'token is not a link Kassa gives');

/**
 * The first passkey of a person: an invited operator's (`invitation`), or the first admin's from the
 * setup link printed at first start (`setup`, who also gives their name and e-mail).
 */
export const registrationOptionsRequestSchema = z
  .discriminatedUnion(
    'link',
    [
      z.strictObject({ link: z.literal('invitation'), token: linkToken, passkeyName }),
      z.strictObject({
        link: z.literal('setup'),
        token: linkToken,
        name: operatorNameSchema,
        email: operatorEmailSchema,
        passkeyName,
      }),
    ],
    { error: 'link must be invitation or setup' },
  )
  .meta({ id: 'RegistrationOptionsRequest' });

export const linkLookupRequestSchema = z
  .strictObject({ link: z.enum(['invitation', 'setup']), token: linkToken })
  .meta({ id: 'LinkLookupRequest' });

/** Whom a link is for, shown before the person makes their passkey. */
export const linkLookupSchema = z
  .object({
    link: z.enum(['invitation', 'setup']),
    /** The invited person; null for the setup link, whose person says who they are. */
    operator: z.object({ name: z.string(), email: z.string(), role: roleSchema }).nullable(),
    expiresAt: z.string(),
  })
  .meta({ id: 'LinkLookup' });

export const addPasskeyOptionsRequestSchema = z.strictObject({ passkeyName }).meta({ id: 'AddPasskeyOptionsRequest' });

/** Who is signed in now, and the CSRF token the page sends as X-Kassa-CSRF on every write. */
export const signedInSchema = z
  .object({
    operator: z.object({ operatorId: z.string(), name: z.string(), email: z.string(), role: roleSchema }),
    csrfToken: z.string(),
    /** When the session ends at the latest, and when unused. */
    expiresAt: z.string(),
    idleExpiresAt: z.string(),
  })
  .meta({ id: 'SignedIn' });
export type SignedIn = z.infer<typeof signedInSchema>;

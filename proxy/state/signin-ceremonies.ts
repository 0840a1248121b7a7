/**
 * Sign-in ceremonies under way (issue 37): a passkey's challenge between its options and its answer,
 * an SSO sign-in between the trip to the identity provider and its return. Kept in the store, not in
 * one process's memory, so that any instance of a fleet can finish a ceremony another one started;
 * each is taken once and lapses within minutes. Every backend passes
 * test/proxy/signin-ceremonies.test.ts.
 */

export type CeremonyPurpose = 'passkey-signin' | 'passkey-register' | 'sso';

export interface CeremonyRecord {
  /** SHA-256 (hex) of what names the ceremony: a WebAuthn challenge, or the SSO cookie's value. */
  keyHash: string;
  purpose: CeremonyPurpose;
  /** What finishing it needs (whose passkey, SSO's state, nonce and PKCE verifier …): never shown to anyone. */
  data: Record<string, string | null>;
  /** Epoch ms. */
  expiresAt: number;
}

export interface SigninCeremonies {
  /** Keeps a ceremony until it is taken or expires. */
  put(ceremony: CeremonyRecord): Promise<void>;
  /** The ceremony, once: the first caller gets it while it has not expired, every later one undefined. */
  take(keyHash: string, now: number): Promise<CeremonyRecord | undefined>;
}

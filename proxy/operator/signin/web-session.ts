/**
 * The sign-in page's session: a `web` credential (30 minutes idle, 12 hours at most) whose secret is
 * the `__Host-kassa_session` cookie, Secure, HttpOnly, SameSite=Strict, for the whole proxy. Writes
 * with it also carry its CSRF token (operator-auth.ts checks both). Signing in anew ends the session
 * the browser had, so a session id planted before sign-in is never the one signed in.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { SignedIn } from '../../../schemas/operator-signin.ts';
import { clientAddress } from '../../../server-kit/client-address.ts';
import type { CredentialRecord, OperatorRecord, OperatorStore } from '../../state/operators.ts';
import {
  CREDENTIAL_LIFETIMES,
  CredentialRefusedError,
  hashSecret,
  type Credentials,
  type OperatorPrincipal,
} from '../credentials.ts';
import { SESSION_COOKIE } from '../operator-auth.ts';

const COOKIE = { secure: true, httpOnly: true, sameSite: 'Strict', path: '/' } as const;

export interface CurrentSession {
  principal: OperatorPrincipal;
  csrfToken: string;
}

export class WebSessions {
  constructor(
    private readonly credentials: Credentials,
    private readonly store: OperatorStore,
    private readonly trustProxy: boolean,
  ) {}

  /** Signs `operator` in on this browser: a new session and its cookie. */
  async start(c: Context, operator: OperatorRecord): Promise<{ signedIn: SignedIn; session: CredentialRecord }> {
    await this.revoke(getCookie(c, SESSION_COOKIE));
    const { secret, credential } = await this.credentials.issue({
      operator,
      kind: 'web',
      ip: clientAddress(c, this.trustProxy),
      userAgent: c.req.header('User-Agent') ?? null,
    });
    setCookie(c, SESSION_COOKIE, secret, { ...COOKIE, maxAge: CREDENTIAL_LIFETIMES.web.absoluteMs / 1000 });
    c.header('Cache-Control', 'no-store');
    return {
      session: credential,
      signedIn: {
        operator: { operatorId: operator.operatorId, name: operator.name, email: operator.email, role: operator.role },
        csrfToken: this.credentials.csrfTokenFor(secret),
        expiresAt: new Date(credential.expiresAt).toISOString(),
        idleExpiresAt: new Date(credential.idleExpiresAt ?? credential.expiresAt).toISOString(),
      },
    };
  }

  /** Who is signed in on this browser (their session still live), or undefined. */
  async current(c: Context): Promise<CurrentSession | undefined> {
    const secret = getCookie(c, SESSION_COOKIE);
    if (secret === undefined) return undefined;
    try {
      const principal = await this.credentials.resolve(secret, ['web']);
      return { principal, csrfToken: this.credentials.csrfTokenFor(secret) };
    } catch (error) {
      if (error instanceof CredentialRefusedError) return undefined;
      throw error;
    }
  }

  /** Signs this browser out: its session revoked (the credential as it was, if it was live), its cookie gone. */
  async end(c: Context): Promise<CredentialRecord | undefined> {
    const revoked = await this.revoke(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, COOKIE);
    return revoked;
  }

  private async revoke(secret: string | undefined): Promise<CredentialRecord | undefined> {
    if (secret === undefined || secret.length > 200) return undefined;
    const found = await this.store.credentialByHash(hashSecret(secret));
    if (found?.credential.kind !== 'web') return undefined;
    return this.store.revokeCredential(found.credential.credentialId, Date.now());
  }
}

/**
 * Signing in with the company's OpenID Connect provider: the browser is sent there with a fresh
 * state, nonce and PKCE challenge (kept in the store as a ceremony, under a cookie only this browser
 * holds), and comes back to `/operator/sso/callback`, where all three are checked before the person
 * is found, made or brought in step (sso-accounts.ts) and signed in.
 */
import type { Context } from 'hono';
import type { OperatorEnv } from '../operator-auth.ts';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { SignedIn } from '../../../schemas/operator-signin.ts';
import { clientAddress } from '../../../server-kit/client-address.ts';
import { randomSecret } from '../credentials.ts';
import { type Ceremonies, CEREMONY_TTL_MS } from './ceremonies.ts';
import type { OidcClient } from './oidc.ts';
import type { RelyingParty } from './relying-party.ts';
import { SSO_ACTOR, type SigninEvents } from './signin-events.ts';
import type { SigninLimits } from './signin-limits.ts';
import { SsoRefusedError, type SsoAccounts } from './sso-accounts.ts';
import type { WebSessions } from './web-session.ts';

/**
 * Binds a trip to the provider to the browser that made it. SameSite=Lax, not Strict: the provider
 * sends the browser back from its own site, and a Strict cookie would stay behind.
 */
export const SSO_COOKIE = '__Host-kassa_sso';
export const CALLBACK_PATH = '/operator/sso/callback';

/** Where a person may be sent back to after signing in: the sign-in pages of this proxy, nothing else. */
export function safeReturnPath(value: string | undefined): string {
  return value !== undefined &&
    (/^\/operator(?:\/device)?(?:\?user_code=[A-Za-z0-9-]{1,16})?$/.test(value) || value === '/operator/counter')
    ? value
    : '/operator';
}

/** An error and the causes under it (openid-client says what did not match in its cause): for the audit. */
function whatWentWrong(error: unknown): string {
  const said: string[] = [];
  for (let at = error; at instanceof Error && said.length < 3; at = at.cause) said.push(at.message);
  return said.join(': ').slice(0, 500) || String(error);
}

export class SsoSignin {
  constructor(
    private readonly deps: {
      oidc: OidcClient;
      accounts: SsoAccounts;
      ceremonies: Ceremonies;
      sessions: WebSessions;
      events: SigninEvents;
      limits: SigninLimits;
      trustProxy: boolean;
    },
  ) {}

  /** The provider's page for this browser, which comes back to `returnTo` once signed in. */
  async start(c: Context<OperatorEnv>, rp: RelyingParty, returnTo: string): Promise<URL> {
    const redirectUri = `${rp.origin}${CALLBACK_PATH}`;
    const { url, checks } = await this.deps.oidc.authorizationUrl(redirectUri);
    const key = randomSecret();
    await this.deps.ceremonies.start(key, 'sso', { ...checks, returnTo: safeReturnPath(returnTo) });
    setCookie(c, SSO_COOKIE, key, {
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      maxAge: CEREMONY_TTL_MS / 1000,
    });
    return url;
  }

  /**
   * Finishes the trip this browser made: the session and where to go, or SsoRefusedError (in words
   * for the person; `failed` for anything about the protocol: a state, nonce or code that does not
   * match, a trip not started here, or a provider that cannot be reached).
   */
  async finish(c: Context<OperatorEnv>, rp: RelyingParty): Promise<{ signedIn: SignedIn; returnTo: string }> {
    const { events, limits, ceremonies, oidc, accounts, sessions } = this.deps;
    const address = clientAddress(c, this.deps.trustProxy);
    const key = getCookie(c, SSO_COOKIE);
    deleteCookie(c, SSO_COOKIE, { secure: true, path: '/' });
    const refuse = async (error: SsoRefusedError, why: string) => {
      limits.failed(address);
      await events.failed(c, 'sso', why, null);
      return error;
    };
    if (limits.blocked(address)) {
      await events.failed(c, 'sso', 'too many failed sign-ins from this address', null);
      throw limits.refusal(address);
    }
    const data = key === undefined ? undefined : await ceremonies.finish(key, 'sso');
    if (!data?.state || !data.nonce || !data.codeVerifier)
      throw await refuse(new SsoRefusedError('failed'), 'no sign-in under way in this browser');
    let operator;
    let changes;
    try {
      const callback = new URL(`${rp.origin}${CALLBACK_PATH}${new URL(c.req.url).search}`);
      const identity = await oidc.identify(callback, {
        state: data.state,
        nonce: data.nonce,
        codeVerifier: data.codeVerifier,
      });
      ({ operator, changes } = await accounts.resolve(identity, events.acting(c, SSO_ACTOR)));
    } catch (error) {
      if (error instanceof SsoRefusedError) throw await refuse(error, error.refusal);
      throw await refuse(new SsoRefusedError('failed'), whatWentWrong(error));
    }
    for (const change of changes)
      await events.record(c, SSO_ACTOR, change.action, {
        target: { type: 'operator', id: operator.operatorId },
        before: change.before,
        after: change.after,
      });
    const { signedIn, session } = await sessions.start(c, operator);
    await events.signedIn(c, 'sso', operator, session.credentialId);
    return { signedIn, returnTo: data.returnTo ?? '/operator' };
  }
}

/**
 * Operators' sign-in over HTTP, as the sign-in page's script makes it (its Origin, its cookie, its
 * CSRF token), with a software authenticator (soft-authenticator.ts): invitations taken up, passkey
 * sign-ins, and calls as a signed-in browser.
 */
import { CLI_ACTOR, NO_CONTEXT } from '../../proxy/operator/audit-trail.ts';
import type { ProxyServices } from '../../proxy/services.ts';
import type { Role } from '../../schemas/operators.ts';
import { http, type HttpInit, type HttpResult } from './http.ts';
import type { AssertOptions, SoftAuthenticator } from './soft-authenticator.ts';

/** A browser signed in to the proxy: its session cookie and CSRF token. */
export interface WebSession {
  origin: string;
  /** `__Host-kassa_session=<secret>`, as the browser sends it back. */
  cookie: string;
  csrf: string;
}

/** The session cookie an answer sets, as `name=value`; undefined when it sets none. */
export function sessionCookieOf(answer: HttpResult): string | undefined {
  const line = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('__Host-kassa_session='));
  return line?.split(';')[0];
}

/** A POST from the proxy's own sign-in page (its Origin), with extra headers. */
export const fromPage = (origin: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  http(`${origin}${path}`, { method: 'POST', body, headers: { Origin: origin, ...headers } });

/** Calls the proxy as the signed-in browser: the cookie always, the CSRF token and Origin on writes. */
export const asBrowser =
  (session: WebSession) =>
  (path: string, init: HttpInit = {}) =>
    http(`${session.origin}${path}`, {
      ...init,
      headers: { Cookie: session.cookie, Origin: session.origin, 'X-Kassa-CSRF': session.csrf, ...init.headers },
    });

/** An invited operator of `role`, made by the proxy's accounts: their invitation link's token. */
export async function invite(
  proxy: { services: ProxyServices },
  role: Role,
  name = `Invited ${role}`,
): Promise<{ operatorId: string; email: string; token: string }> {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@shop.test`;
  const { operator, token } = await proxy.services.operators.accounts.invite(
    { name, email, role },
    { actor: CLI_ACTOR, context: NO_CONTEXT },
  );
  return { operatorId: operator.operatorId, email, token };
}

/** Makes the first passkey over a link (`invitation` or `setup`) and returns the session it signs in. */
export async function registerByLink(
  origin: string,
  authenticator: SoftAuthenticator,
  request: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<WebSession> {
  const options = await fromPage(origin, '/operator/passkeys/options', request, headers);
  if (options.status !== 200) throw new Error(`passkey options: ${options.status} ${options.text}`);
  const made = await fromPage(
    origin,
    '/operator/passkeys',
    { response: authenticator.register(options.body.options) },
    headers,
  );
  if (made.status !== 200) throw new Error(`passkey: ${made.status} ${made.text}`);
  return { origin, cookie: sessionCookieOf(made)!, csrf: made.body.csrfToken };
}

/** A new operator of `role` with a passkey on `authenticator`, signed in once (by their invitation). */
export async function operatorWithPasskey(
  proxy: { services: ProxyServices; origin: string },
  authenticator: SoftAuthenticator,
  role: Role = 'finance',
): Promise<{ operatorId: string; session: WebSession }> {
  const invited = await invite(proxy, role);
  const session = await registerByLink(authenticator.origin, authenticator, {
    link: 'invitation',
    token: invited.token,
    passkeyName: 'Soft key',
  });
  return { operatorId: invited.operatorId, session };
}

/** A passkey sign-in: the options, the authenticator's answer (as `how` says), the proxy's answer. */
export async function passkeySignin(
  authenticator: SoftAuthenticator,
  how: AssertOptions = {},
  headers: Record<string, string> = {},
): Promise<{ answer: HttpResult; assertion: Record<string, unknown>; session?: WebSession }> {
  const { origin } = authenticator;
  const options = await fromPage(origin, '/operator/signin/options', undefined, headers);
  if (options.status !== 200) throw new Error(`sign-in options: ${options.status} ${options.text}`);
  const assertion = authenticator.assert(options.body.options, how);
  const answer = await fromPage(origin, '/operator/signin', { response: assertion }, headers);
  const cookie = sessionCookieOf(answer);
  return {
    answer,
    assertion,
    session: answer.status === 200 && cookie ? { origin, cookie, csrf: answer.body.csrfToken } : undefined,
  };
}

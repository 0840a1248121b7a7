import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { NotAllowedError, UnauthenticatedError } from '../domain/domain-errors.ts';
import type { ProxyEnv } from '../http/middleware/request-id.ts';
import type { Logger } from '../logger.ts';
import type { ApiOperations, OperationKey } from '../http/openapi/operation.ts';
import type { CredentialKind } from '../../schemas/operators.ts';
import { CredentialRefusedError, type Credentials, type OperatorPrincipal } from './credentials.ts';
import { allows, missingPermission, type RoutePermission } from './permissions.ts';

/** What `operatorAuth` puts on the context: who is calling, with which credential and role. */
export interface OperatorEnv {
  Variables: ProxyEnv['Variables'] & { operator: OperatorPrincipal };
}

/** The web session's cookie (set by the sign-in page): `Secure; HttpOnly; SameSite=Strict; Path=/`. */
export const SESSION_COOKIE = '__Host-kassa_session';
/** On every write with the session cookie: the session's CSRF token (`Credentials.csrfTokenFor`). */
export const CSRF_HEADER = 'X-Kassa-CSRF';
/** What a 401 names in WWW-Authenticate. */
export const OPERATOR_REALM = 'Kassa operator';

export interface OperatorAuthOptions {
  credentials: Credentials;
  /** What the route needs, as its OpenAPI operation declares it. */
  permission: RoutePermission;
  /** The proxy's own origin (KASSA_PUBLIC_URL), which a web session's writes must come from; else the request's. */
  publicUrl?: string | null;
  /** Called with the permission a caller lacked (the refusals metric). */
  onRefusal?: (permission: string) => void;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER: readonly CredentialKind[] = ['api', 'device'];
const WEB: readonly CredentialKind[] = ['web'];

/** The credential a request presents: a bearer token (personal or device), else the session cookie. */
function presentedCredential(c: Context): { secret: string; kinds: readonly CredentialKind[] } | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '')?.[1];
  if (bearer !== undefined) return { secret: bearer, kinds: BEARER };
  const session = getCookie(c, SESSION_COOKIE);
  return session === undefined ? undefined : { secret: session, kinds: WEB };
}

/** How often a long-lived answer (an event stream) checks that its credential still works. */
export const CREDENTIAL_RECHECK_MS = 500;

/**
 * Checks again, every `everyMs`, the credential an operator's long-lived answer (an event stream) was
 * opened with, as every request's guard would: `onRefused` once it no longer works (revoked, expired,
 * its owner suspended or removed, on this instance or another of a fleet), with the 401's words. A
 * store that cannot be asked for a moment ends nothing. Returns how to stop checking.
 */
export function watchCredential(
  c: Context,
  credentials: Credentials,
  onRefused: (message: string) => void,
  everyMs = CREDENTIAL_RECHECK_MS,
): () => void {
  const presented = presentedCredential(c);
  let checking = false;
  const timer = setInterval(() => {
    if (!presented || checking) return;
    checking = true;
    credentials
      .resolve(presented.secret, presented.kinds)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!(error instanceof CredentialRefusedError)) return;
          clearInterval(timer);
          onRefused(error.message);
        },
      )
      .finally(() => (checking = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** What an operator's event stream takes of the proxy's services. */
export interface OperatorStreamParts {
  sseHeartbeatMs: number;
  metrics: { sseConnections: { inc(): void; dec(): void } };
  logger: Logger;
  operators: { credentials: Credentials };
}

/**
 * The options every operator's event stream shares (http/sse.ts): its heartbeats, the open streams'
 * metric, the log, and its credential watched, so that a revoked device (anywhere in a fleet) hears
 * it at once with a last `unauthorized` event, not at its next request.
 */
export function operatorStream(c: Context, parts: OperatorStreamParts) {
  return {
    heartbeatMs: parts.sseHeartbeatMs,
    open: parts.metrics.sseConnections,
    logger: parts.logger,
    watch: (end: (last: { event: string; data: object }) => void) =>
      watchCredential(c, parts.operators.credentials, (error) => end({ event: 'unauthorized', data: { error } })),
  };
}

const unauthenticated = (message: string) => new UnauthenticatedError(message, OPERATOR_REALM);

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * An operator route's guard: `Authorization: Bearer` with a personal API token or a device token, or
 * the sign-in page's session cookie (with its CSRF token and the proxy's own Origin on writes). The
 * credential is looked up in the store on every request; the caller's role must give the route's
 * permission, or the answer is a 403 that names it.
 */
export const operatorAuth = (options: OperatorAuthOptions) => {
  const { credentials, permission, publicUrl = null, onRefusal } = options;
  return createMiddleware<OperatorEnv>(async function operatorAuth(c, next) {
    const presented = presentedCredential(c);
    if (!presented)
      throw unauthenticated(
        'Send Authorization: Bearer <a personal API token or device token>, or sign in at /operator',
      );
    const session = presented.kinds === WEB ? presented.secret : undefined;
    let operator: OperatorPrincipal;
    try {
      operator = await credentials.resolve(presented.secret, presented.kinds);
    } catch (error) {
      if (error instanceof CredentialRefusedError) throw unauthenticated(error.message);
      throw error;
    }
    if (session !== undefined && !SAFE_METHODS.has(c.req.method))
      checkWrite(c, credentials.csrfTokenFor(session), publicUrl);
    if (!allows(operator.role, permission)) {
      const missing = missingPermission(permission as Exclude<RoutePermission, 'self'>);
      onRefusal?.(missing);
      throw new NotAllowedError(`This needs the permission ${missing}; your role ${operator.role} does not have it`, {
        fields: { permission: missing },
      });
    }
    c.set('operator', operator);
    await next();
  });
};

/** A write with the session cookie: the CSRF token in its header, from the proxy's own pages. */
function checkWrite(c: Context, csrf: string, publicUrl: string | null): void {
  const origin = c.req.header('Origin');
  const own = publicUrl ?? new URL(c.req.url).origin;
  if (!sameText(c.req.header(CSRF_HEADER) ?? '', csrf) || (origin !== undefined && origin !== own))
    throw new NotAllowedError(
      `A write with the session cookie needs the ${CSRF_HEADER} header and the proxy's own Origin`,
    );
}

/**
 * The guards of one routes module, each taken from its operation in the module's table, so that the
 * permission a route enforces is the one the OpenAPI document shows: `guard('POST /api/orders')`.
 */
export function operatorGuards(
  operations: ApiOperations,
  options: Omit<OperatorAuthOptions, 'permission'>,
): (key: OperationKey) => ReturnType<typeof operatorAuth> {
  return (key) => {
    const access = operations[key]?.access;
    if (access?.auth !== 'operator') throw new Error(`${key} is not an operator operation of this table`);
    return operatorAuth({ ...options, permission: access.permission });
  };
}

import { createMiddleware } from 'hono/factory';
import type { MerchantScope } from '../../schemas/merchant-keys.ts';
import { NotAllowedError, UnauthenticatedError } from '../domain/domain-errors.ts';
import type { MerchantCaller, MerchantKeys } from './merchant-keys.ts';

/** What a 401 names in WWW-Authenticate: the setting, or a key an admin made. */
export const MERCHANT_REALM = 'KASSA_MERCHANT_KEY';

export interface MerchantAuthOptions {
  keys: MerchantKeys;
  /** What the route needs. */
  scope: MerchantScope;
  /** Without Authorization the route still answers (the customer's view); with it, the key must hold. */
  optional?: boolean;
}

/** The bearer secret of a request, or undefined without Authorization; a malformed header opens nothing. */
const bearerOf = (authorization: string | undefined): string | undefined =>
  authorization === undefined ? undefined : (/^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? '');

/**
 * A merchant route's guard: `Authorization: Bearer` with KASSA_MERCHANT_KEY or a merchant key an admin
 * made (looked up on every request: revoked or expired, it is refused at once on every instance),
 * which must carry the route's scope, or the answer is a 403 naming it.
 */
export const merchantAuth = (options: MerchantAuthOptions) =>
  createMiddleware<{ Variables: { merchant?: MerchantCaller } }>(async function merchantAuth(c, next) {
    const secret = bearerOf(c.req.header('Authorization'));
    if (secret === undefined && options.optional) return next();
    const caller = secret ? await options.keys.authenticate(secret) : undefined;
    if (!caller)
      throw new UnauthenticatedError(
        `Send Authorization: Bearer <${MERCHANT_REALM} or a merchant key>${options.optional ? ', or no Authorization at all' : ''}`,
        MERCHANT_REALM,
      );
    if (!caller.scopes.includes(options.scope))
      throw new NotAllowedError(`This merchant key lacks the scope ${options.scope}`);
    c.set('merchant', caller);
    await next();
  });

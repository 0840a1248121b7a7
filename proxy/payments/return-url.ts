import type { Context } from 'hono';
import { STATUS_QUERY_PARAM } from '../../lib/status-token.ts';
import { isLoopbackHost } from '../../lib/url-rules.ts';
import { URL_MAX } from '../../schemas/pay.ts';
import { InvalidInputError } from '../domain/domain-errors.ts';

/**
 * Where the bank sends the customer back: one of the configured return URLs (the first by default).
 * A requested URL is accepted when its origin and path are those of a configured one; its query may
 * differ (an order number, say). `kassa_status=<statusToken>` is added so that a customer who comes
 * back in another tab can still see the status.
 */
export function returnUrlFor(requested: string | undefined, allowed: readonly string[], statusToken: string): string {
  let url: URL;
  if (requested === undefined) {
    url = new URL(allowed[0]!);
  } else {
    let candidate: URL;
    try {
      candidate = new URL(requested);
    } catch {
      throw new InvalidInputError('returnUrl must be an absolute URL');
    }
    const match = allowed.some((entry) => {
      const configured = new URL(entry);
      return configured.origin === candidate.origin && configured.pathname === candidate.pathname;
    });
    // The reason lets the element tell the shop's developer which setting to change (KASSA_RETURN_URLS).
    if (!match || candidate.username || candidate.password)
      throw new InvalidInputError('returnUrl is not one of the return URLs this shop allows (KASSA_RETURN_URLS)', {
        details: { reason: 'return-url-not-allowed' },
      });
    candidate.hash = '';
    url = candidate;
  }
  url.searchParams.delete(STATUS_QUERY_PARAM);
  url.searchParams.append(STATUS_QUERY_PARAM, statusToken);
  // Checked on the URL as it will be sent: encoding and the status parameter make it longer than asked.
  if (url.href.length > URL_MAX)
    throw new InvalidInputError(
      `returnUrl is too long: with the payment's status it would be ${url.href.length} characters, and at most ${URL_MAX} can be sent`,
    );
  return url.href;
}

/**
 * The path of a payment's return address on the proxy: the bank sends the customer there
 * (handoff/handoff-routes.ts).
 */
export const returnPath = (statusToken: string): string => `/r/${statusToken}`;

export const proxyReturnUrl = (proxyOrigin: string, statusToken: string): string =>
  proxyOrigin + returnPath(statusToken);

/**
 * Where the proxy's return address leads a computer: the shop's page the payment was started for,
 * checked again against today's return URLs (a URL taken off the list since leads to the first one).
 */
export function shopReturnUrl(stored: string | null, allowed: readonly string[], statusToken: string): string {
  if (stored !== null) {
    try {
      return returnUrlFor(stored, allowed, statusToken);
    } catch {
      // no longer allowed: the default page
    }
  }
  return returnUrlFor(undefined, allowed, statusToken);
}

/**
 * Where browsers and banks reach this proxy: KASSA_PUBLIC_URL, else the address of the request when
 * it is on loopback (the sandbox, tests). A Host header from elsewhere is never believed: it would let
 * anyone send customers back from the bank to a site of their choosing. Undefined: unknown.
 */
export function publicOrigin(configured: string | null, requestUrl: string): string | undefined {
  if (configured) return configured;
  const url = new URL(requestUrl);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname) ? url.origin : undefined;
}

/** The proxy's own origin as a request tells it (publicOrigin): its pages' origin, for browserOrigins' ownOrigin. */
export const ownOrigin =
  (configured: string | null) =>
  (c: Context): string | undefined =>
    publicOrigin(configured, c.req.url);

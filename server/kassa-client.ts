/**
 * The merchant's server talks to its Kassa proxy: it creates the checkouts its customers pay (the
 * amount is decided here, never in the browser) and reads them back with its merchant key.
 */
import type { z } from 'zod';
import {
  errorSchema,
  IDEMPOTENCY_KEY_PATTERN,
  merchantCheckoutSchema,
  type CreateCheckoutRequest,
  type MerchantCheckout,
} from '../schemas/proxy-api.ts';
import { KassaError } from './kassa-error.ts';

export interface KassaClientOptions {
  /** The proxy's origin, e.g. https://pay.example.com (a path prefix is kept). */
  proxyUrl: string;
  /** KASSA_MERCHANT_KEY: keep it on the server. */
  merchantKey: string;
  /** A fetch to use instead of the global one (a test double, an instrumented one). */
  fetch?: typeof fetch;
  /** How long to wait for an answer before failing with status 0. */
  timeoutMs?: number;
}

export interface CreateCheckoutOptions {
  /**
   * Sent as the Idempotency-Key header: a retry with the same key and body gets the same checkout;
   * another body under the key is refused (422).
   */
  idempotencyKey?: string;
}

export interface KassaClient {
  checkouts: {
    /** Creates a checkout for the customer to pay (201). */
    create(request: CreateCheckoutRequest, options?: CreateCheckoutOptions): Promise<MerchantCheckout>;
    /** The checkout as the merchant sees it: state, metadata, its payment. */
    get(checkoutId: string): Promise<MerchantCheckout>;
  };
}

const defaults = { timeoutMs: 10_000 };

function baseUrl(proxyUrl: string): string {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    throw new TypeError(`proxyUrl must be an absolute URL, not "${proxyUrl}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`proxyUrl must be an http(s) URL, not "${proxyUrl}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * A client for the proxy's merchant API. Every answer is checked against the proxy's schemas; every
 * failure is a {@link KassaError}.
 */
export function createKassaClient(options: KassaClientOptions): KassaClient {
  const { proxyUrl, merchantKey, fetch: fetchImpl = globalThis.fetch, timeoutMs } = { ...defaults, ...options };
  const base = baseUrl(proxyUrl);
  if (typeof merchantKey !== 'string' || merchantKey === '')
    throw new TypeError('merchantKey is required: KASSA_MERCHANT_KEY');

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetchImpl(`${base}${path}`, {
        method,
        headers: {
          Accept: 'application/json',
          Authorization: `Bearer ${merchantKey}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : error;
      throw new KassaError(0, `Could not reach the Kassa proxy at ${base}: ${String(reason)}`);
    }
    const text = await response.text().catch(() => '');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const problem = errorSchema.safeParse(json);
      if (problem.success) throw new KassaError(response.status, problem.data.error, problem.data.details);
      throw new KassaError(response.status, `The Kassa proxy answered ${response.status} with no error message`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new KassaError(
        response.status,
        'The Kassa proxy answered with something other than what it documents (is proxyUrl the proxy?)',
        parsed.error.issues,
      );
    return parsed.data;
  }

  return {
    checkouts: {
      create(request, { idempotencyKey } = {}) {
        if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
          return Promise.reject(
            new KassaError(0, 'idempotencyKey must be 8 to 255 letters, digits or _ . : - (not sent)'),
          );
        return call('POST', '/api/checkouts', merchantCheckoutSchema, request, {
          ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
        });
      },
      get(checkoutId) {
        if (typeof checkoutId !== 'string' || checkoutId === '')
          return Promise.reject(new KassaError(0, 'checkoutId is required (not sent)'));
        return call('GET', `/api/checkouts/${encodeURIComponent(checkoutId)}`, merchantCheckoutSchema);
      },
    },
  };
}

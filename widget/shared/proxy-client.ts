import type { CheckoutView, PublicConfig } from '../../schemas/proxy-api.ts';

/**
 * What went wrong talking to the proxy, in the terms a customer-facing message needs:
 * - `unreachable`: no answer at all (offline, proxy down, blocked by the browser);
 * - `rate-limited`: 429; `unavailable`: a 5xx or an answer that is not the proxy's JSON;
 * - `rejected`: any other 4xx; `status` says which (404 unknown, 409 paid, 410 expired, ...).
 */
export type ProxyErrorKind = 'unreachable' | 'rate-limited' | 'unavailable' | 'rejected';

export class ProxyError extends Error {
  constructor(
    readonly kind: ProxyErrorKind,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
    /** The proxy's own message (English, for developers); customers see localised text. */
    message: string,
    /** Seconds to wait before trying again, when the proxy said so. */
    readonly retryAfter?: number,
    /** What the proxy said besides its message, for a page to tell refusals apart (`details` of its answer). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ProxyError';
  }
}

const TIMEOUT_MS = 20_000;

/** kassa.js is served by the proxy, so by default an element's proxy is where this module came from. */
export const SCRIPT_ORIGIN = new URL(import.meta.url).origin;

/**
 * The browser side of the proxy's customer routes (proxy/payments/payment-routes.ts): what the first
 * render reads. Chunks add the routes they use (starting a payment, following its status).
 */
export class ProxyClient {
  /** The proxy's origin, without a trailing slash. */
  readonly origin: string;

  constructor(proxy: string) {
    this.origin = new URL(proxy).origin;
  }

  async checkout(checkoutId: string): Promise<CheckoutView> {
    return (await this.call<CheckoutView>(`/api/checkouts/${encodeURIComponent(checkoutId)}`)).body;
  }

  async config(): Promise<PublicConfig> {
    return (await this.call<PublicConfig>('/api/config')).body;
  }

  /** One call to the proxy; subclasses for other route families (the wallet panel's) build on it. */
  protected async call<T>(path: string, init: RequestInit = {}): Promise<{ body: T; status: number }> {
    let response: Response;
    try {
      // No cookies or other credentials: the proxy's browser routes are capability-based.
      response = await fetch(this.origin + path, {
        ...init,
        credentials: 'omit',
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new ProxyError('unreachable', 0, (error as Error).message);
    }
    const body = (await response.json().catch(() => undefined)) as
      (T & { error?: unknown; details?: unknown }) | undefined;
    if (response.ok && body) return { body, status: response.status };
    const message = typeof body?.error === 'string' ? body.error : `HTTP ${response.status}`;
    const kind =
      response.status === 429 ? 'rate-limited' : response.status >= 500 || !body ? 'unavailable' : 'rejected';
    throw new ProxyError(kind, response.status, message, retryAfter(response), body?.details);
  }
}

/** Retry-After in seconds (a number of seconds or an HTTP date); the proxy exposes it to pages. */
function retryAfter(response: Response): number | undefined {
  const header = response.headers.get('Retry-After');
  if (header === null) return undefined;
  const seconds = /^\d+$/.test(header) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

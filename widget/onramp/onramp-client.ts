import { ProxyClient } from '../shared/proxy-client.ts';
import type { StateFeed } from '../shared/state-stream-controller.ts';
import type { CreatedPurchase, OnrampConfig, PurchaseView, Quote } from '../../schemas/onramp.ts';

/** What the customer asks a quote for: the wallet the tokens go to, where, which coin and how many. */
export interface QuoteRequest {
  wallet: string;
  chainId: number;
  symbol: string;
  /** Whole tokens, a decimal string. */
  amount: string;
}

/** Nothing more happens to a purchase in these states (FINAL_PURCHASE_STATES in schemas/onramp.ts, not imported: no zod here). */
const FINAL: ReadonlySet<string> = new Set(['delivered', 'failed', 'refunded']);

/**
 * The browser side of the proxy's on-ramp routes (docs/onramp.md): what may be bought, a quote and
 * its message to sign, the purchase once signed, and the purchase's state. The customer pays the
 * purchase's checkout through `<kassa-checkout>`, and the wallet signs in the wallet: no request of
 * the element carries key material.
 */
export class OnrampClient extends ProxyClient {
  async onrampConfig(): Promise<OnrampConfig> {
    return (await this.call<OnrampConfig>('/api/onramp/config')).body;
  }

  async quote(request: QuoteRequest): Promise<Quote> {
    return (await this.post<Quote>('/api/onramp/quotes', request)).body;
  }

  /** Retries with the same key answer the same purchase. */
  async purchase(quoteId: string, signature: string, idempotencyKey: string): Promise<CreatedPurchase> {
    return (await this.post<CreatedPurchase>('/api/onramp/purchases', { quoteId, signature }, idempotencyKey)).body;
  }

  /** The purchase's state, read now or followed live, until it is final. */
  feed(purchaseToken: string): StateFeed<PurchaseView> {
    const path = `/api/onramp/status/${encodeURIComponent(purchaseToken)}`;
    return {
      eventsUrl: `${this.origin}${path}/events`,
      event: 'purchase',
      read: async () => (await this.call<PurchaseView>(path)).body,
      key: (view) => `${view.state} ${view.updatedAt} ${view.payment.status}`,
      final: (view) => FINAL.has(view.state),
    };
  }

  private post<T>(path: string, body: unknown, idempotencyKey?: string) {
    return this.call<T>(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
  }
}

import { ProxyClient } from '../shared/proxy-client.ts';
import type { StateFeed } from '../shared/state-stream-controller.ts';
import type { CreatedPurchase, OnrampConfig, PurchaseView, Quote, QuoteRequest } from './onramp-api.ts';

const FINAL: ReadonlySet<string> = new Set(['delivered', 'failed', 'refunded']);

/** Whether nothing more happens to a purchase in this state. */
export const isFinal = (view: PurchaseView) => FINAL.has(view.state);

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

  async purchase(quoteId: string, signature: string): Promise<CreatedPurchase> {
    return (await this.post<CreatedPurchase>('/api/onramp/purchases', { quoteId, signature })).body;
  }

  /** The purchase's state, read now or followed live, until it is final. */
  feed(purchaseToken: string): StateFeed<PurchaseView> {
    const path = `/api/onramp/status/${encodeURIComponent(purchaseToken)}`;
    return {
      eventsUrl: `${this.origin}${path}/events`,
      event: 'status',
      read: async () => (await this.call<PurchaseView>(path)).body,
      key: (view) => `${view.state} ${view.updatedAt} ${view.payment.status} ${view.txHash}`,
      final: isFinal,
    };
  }

  private post<T>(path: string, body: unknown) {
    return this.call<T>(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
}

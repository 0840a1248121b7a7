import { Gauge, Histogram, type Registry } from 'prom-client';
import { WORK_STATES, type PurchaseStore } from '../state/purchases.ts';

/** The on-ramp in /metrics: purchases not finished, by state (a `delayed` one wants the operator), and how long delivery takes. */
export class OnrampMetrics {
  private readonly delivery: Histogram;

  constructor(registry: Registry, purchases: PurchaseStore) {
    new Gauge({
      name: 'kassa_onramp_purchases_open',
      help: 'On-ramp purchases not finished yet, by state (awaiting_payment, paid, minting, delayed)',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        const counts = new Map<string, number>(
          ['awaiting_payment', 'paid', 'minting', 'delayed'].map((state) => [state, 0]),
        );
        for (const purchase of await purchases.unsettled(['awaiting_payment', ...WORK_STATES], 10_000))
          counts.set(purchase.state, (counts.get(purchase.state) ?? 0) + 1);
        for (const [state, count] of counts) this.set({ state }, count);
      },
    });
    this.delivery = new Histogram({
      name: 'kassa_onramp_delivery_seconds',
      help: 'From a purchase paid (its payment verified) to its mint seen on the chain',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers: [registry],
    });
  }

  delivered(paidAt: number | null, deliveredAt: number): void {
    if (paidAt !== null) this.delivery.observe(Math.max(0, deliveredAt - paidAt) / 1000);
  }
}

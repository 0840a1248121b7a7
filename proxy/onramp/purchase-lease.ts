import { randomUUID } from 'node:crypto';
import type { PurchaseStore } from '../state/purchases.ts';

/** How long a purchase's work lease lasts without renewal; its holder renews it every third of that. */
export const PURCHASE_LEASE_MS = 30_000;

/** The lease holders: the worker of each instance, and each operator request (its own, every time). */
export const leaseHolders = {
  worker: (instance: string) => `worker:${instance}`,
  operator: (instance: string) => `operator:${instance}:${randomUUID()}`,
  isOperator: (holder: string) => holder.startsWith('operator:'),
};

/**
 * A purchase's work lease, held by one actor at a time (the worker of one instance, or one operator
 * request) for as long as it works on the purchase: renewed meanwhile, so a slow step does not let
 * another actor in, and given up at the end. The lease keeps actors from working on one purchase
 * together; what makes a stale actor harmless is that every change is conditioned on what it read.
 */
export class PurchaseLease {
  private readonly timer: NodeJS.Timeout;
  private lost = false;

  private constructor(
    private readonly purchases: PurchaseStore,
    private readonly purchaseId: string,
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {
    this.timer = setInterval(() => void this.held().catch(() => undefined), leaseMs / 3);
    this.timer.unref();
  }

  /** The lease, or undefined while another actor holds it. */
  static async take(
    purchases: PurchaseStore,
    purchaseId: string,
    holder: string,
    leaseMs = PURCHASE_LEASE_MS,
  ): Promise<PurchaseLease | undefined> {
    if (!(await purchases.lease(purchaseId, holder, Date.now(), leaseMs))) return undefined;
    return new PurchaseLease(purchases, purchaseId, holder, leaseMs);
  }

  /** Renews the lease now: false once another actor has taken it (it ran out meanwhile), for good. */
  async held(): Promise<boolean> {
    if (this.lost) return false;
    if (!(await this.purchases.lease(this.purchaseId, this.holder, Date.now(), this.leaseMs))) this.lost = true;
    return !this.lost;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.purchases.unlease(this.purchaseId, this.holder).catch(() => undefined);
  }
}

import type { Order } from '../../schemas/orders.ts';
import type { OrderFaultRequest } from '../../schemas/sandbox.ts';
import type { OrderBook } from './order-book.ts';

export interface IssuerOptions {
  /** How long after its creation an order is processed; null leaves every order to the caller. */
  delayMs: number | null;
  /** Mints an order's tokens; true once mined (the relayer's `mintForOrder`). */
  mint: (order: Order) => Promise<boolean>;
}

type OrderFault = OrderFaultRequest['kind'];

/**
 * The stablecoin issuer behind the order service: what a merchant submits is processed by the
 * service itself, as a real issuer does once the money is in: `New` → `Processing` → minted on the
 * chain → `Completed`, `delayMs` after creation. Staged faults fail the next orders (nothing minted)
 * or hold them `Processing` until released (a late mint). An order the caller moved on meanwhile
 * (cancelled, deleted, set by hand) is left as the caller set it.
 */
export class Issuer {
  private book: OrderBook | undefined;
  private readonly faults: Array<{ kind: OrderFault; remaining: number }> = [];
  private readonly held = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly working = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: IssuerOptions) {}

  /** The book whose new orders it processes (the book is built with this issuer's `onCreated`). */
  attach(book: OrderBook): void {
    this.book = book;
  }

  readonly onCreated = (order: Order): void => {
    if (this.options.delayMs === null || this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(this.process(order.orderId));
    }, this.options.delayMs);
    this.timers.add(timer);
  };

  /** Stages what happens to the next `times` orders. */
  addFault(fault: OrderFaultRequest): void {
    this.faults.push({ kind: fault.kind, remaining: fault.times });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** The faults still staged, and the orders held. */
  describe() {
    return {
      delayMs: this.options.delayMs,
      faults: this.faults.map(({ kind, remaining }) => ({ kind, remaining })),
      held: [...this.held],
    };
  }

  /** Mints and completes a held order; false when the order is not held. */
  release(orderId: string): boolean {
    if (!this.held.delete(orderId)) return false;
    this.track(this.complete(orderId));
    return true;
  }

  /**
   * Mints an order's tokens now, whatever its status: an issuer that failed an order and minted it
   * after all (a late, stray mint). True once mined; undefined when no order has this id.
   */
  async mintLate(orderId: string): Promise<boolean | undefined> {
    let order: Order;
    try {
      order = this.book!.get(orderId);
    } catch {
      return undefined;
    }
    const minting = this.options.mint(order);
    this.track(
      minting.then(
        () => undefined,
        () => undefined,
      ),
    );
    return minting;
  }

  /** Processes nothing more; waits for the mints under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.working);
  }

  private track(work: Promise<void>): void {
    this.working.add(work);
    void work.finally(() => this.working.delete(work));
  }

  private takeFault(): OrderFault | undefined {
    const fault = this.faults[0];
    if (!fault) return undefined;
    if (--fault.remaining === 0) this.faults.shift();
    return fault.kind;
  }

  private async process(orderId: string): Promise<void> {
    const book = this.book!;
    if (this.stopped || this.statusOf(orderId) !== 'New') return;
    const fault = this.takeFault();
    book.update(orderId, { orderStatus: 'Processing' });
    if (fault === 'hold') return void this.held.add(orderId);
    if (fault === 'fail') return void book.update(orderId, { orderStatus: 'Failed' });
    await this.complete(orderId);
  }

  /** Mints, then completes the order, if it is still Processing by then (the caller may have failed it). */
  private async complete(orderId: string): Promise<void> {
    const book = this.book!;
    if (this.statusOf(orderId) !== 'Processing') return;
    const minted = await this.options.mint(book.get(orderId));
    if (this.statusOf(orderId) !== 'Processing') return;
    book.update(orderId, { orderStatus: minted ? 'Completed' : 'Failed' });
  }

  /** The order's status now, or undefined once deleted. */
  private statusOf(orderId: string): string | undefined {
    try {
      return this.book!.get(orderId).orderStatus;
    } catch {
      return undefined;
    }
  }
}

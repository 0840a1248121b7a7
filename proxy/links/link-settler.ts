import { isTerminalStatus } from '../../schemas/pay.ts';
import type { Logger } from '../logger.ts';
import type { StatusBus } from '../state/coordination.ts';
import type { Links } from './links.ts';

export interface LinkSettlerOptions {
  links: Links;
  bus: StatusBus;
  logger: Logger;
  /** Called when events were written, so that the deliverer sends them now. */
  eventsWritten?: () => void;
  /** How often the uses still held are looked over (2 s). */
  sweepMs?: number;
}

/**
 * Settles links' uses: woken by a payment that ends (on the status bus, from any instance), and
 * sweeping the uses still held, so that neither a restart nor a missed message leaves a use held.
 * Each settle is one store step that happens once (state/links.ts), whichever instance gets there.
 */
export class LinkSettler {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: LinkSettlerOptions) {}

  start(): void {
    this.unsubscribe = this.options.bus.subscribeAll((view) => {
      if (view.checkoutId && isTerminalStatus(view.status)) void this.settleCheckout(view.checkoutId);
    });
    this.timer = setInterval(() => void this.sweep(), this.options.sweepMs ?? 2_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  private async settleCheckout(checkoutId: string): Promise<void> {
    try {
      const use = await this.options.links.useOf(checkoutId);
      if (use?.state === 'held') this.written(await this.options.links.settle(use));
    } catch (error) {
      this.options.logger.warn('a link payment could not be settled; the sweep tries again', { checkoutId, error });
    }
  }

  private async sweep(): Promise<void> {
    try {
      const settled = await this.options.links.settleHeld();
      if (settled > 0) this.options.eventsWritten?.();
    } catch (error) {
      this.options.logger.warn('sweep of held link uses failed', { error });
    }
  }

  private written(use: { state: string } | undefined): void {
    if (use?.state === 'paid') this.options.eventsWritten?.();
  }
}

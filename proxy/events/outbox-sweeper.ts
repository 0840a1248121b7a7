import type { Environment } from '../../schemas/pay.ts';
import type { Logger } from '../logger.ts';
import type { Outbox } from '../state/outbox.ts';
import { expiryRule } from './event-rules.ts';

/** Delivered events are kept this long for the operator, then purged. */
const DELIVERED_KEPT_MS = 30 * 24 * 3_600_000;
const PURGE_EVERY_MS = 3_600_000;

/**
 * Writes `checkout.expired` for checkouts past their expiry (every 5 s) and purges delivered events
 * (hourly), for every destination alike: one per proxy that sends events at all.
 */
export class OutboxSweeper {
  private timer: NodeJS.Timeout | undefined;
  private lastPurge = 0;

  constructor(
    private readonly options: {
      outbox: Outbox;
      /** The payment environment, for checkout events that have no payment. */
      environment: () => Promise<Environment>;
      logger: Logger;
      /** Events were written: the deliverers look now. */
      written: () => void;
      sweepMs?: number | undefined;
    },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.options.sweepMs ?? 5_000);
    this.timer.unref();
    void this.sweep();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sweep(): Promise<void> {
    const { outbox, logger } = this.options;
    try {
      const now = Date.now();
      const settled = await outbox.expireCheckouts(now, 100, expiryRule(await this.options.environment()));
      if (settled > 0) this.options.written();
      if (now - this.lastPurge > PURGE_EVERY_MS) {
        this.lastPurge = now;
        await outbox.purgeDelivered(now - DELIVERED_KEPT_MS);
      }
    } catch (error) {
      logger.warn('checkout expiry sweep failed', { error });
    }
  }
}

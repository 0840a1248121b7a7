import { createHash } from 'node:crypto';
import { isTerminalStatus } from '../../schemas/pay.ts';
import { JSON_MAX_DEPTH, nestsDeeperThan } from '../../server-kit/json-body.ts';
import { findKeyMaterial } from '../domain/key-material.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../state/store.ts';
import type { PaymentRefresher } from './payment-refresher.ts';

/** The fields of the payment service's event; nothing else of a body is ever stored. */
const PUBLIC_FIELDS = ['event', 'transactionId', 'networkPaymentId', 'status', 'amount', 'currencyCode', 'timestamp'];

/**
 * What is kept of a webhook body: its public fields, when they are plain values and carry no key
 * material (a body that does is answered like any other, as the service requires, but not kept).
 */
function readHint(body: string): { transactionId: string | null; kept: string } {
  let event: unknown;
  try {
    event = nestsDeeperThan(body, JSON_MAX_DEPTH) ? undefined : JSON.parse(body);
  } catch {
    event = undefined;
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return { transactionId: null, kept: '{}' };
  const fields = event as Record<string, unknown>;
  const transactionId =
    typeof fields.transactionId === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(fields.transactionId)
      ? fields.transactionId
      : null;
  if (findKeyMaterial(event, true)) return { transactionId, kept: '{"refused":"key material"}' };
  const kept = Object.fromEntries(
    PUBLIC_FIELDS.flatMap((name) => {
      const value = fields[name];
      return typeof value === 'string' || typeof value === 'number' ? [[name, value]] : [];
    }),
  );
  return { transactionId, kept: JSON.stringify(kept).slice(0, 2_048) };
}

export interface WebhookIntakeOptions {
  store: Store;
  refresher: PaymentRefresher;
  logger: Logger;
  /** Counts each delivery (/metrics). */
  count: (result: 'accepted' | 'duplicate') => void;
}

/**
 * The payment service's webhooks. Its events are unsigned, so an event is only a hint: it is recorded
 * (which deduplicates it), then the payment it names is re-read from the service; nothing in the event
 * itself ever changes a status.
 */
export class WebhookIntake {
  constructor(private readonly options: WebhookIntakeOptions) {}

  /**
   * Records a delivery, and follows it up behind the answer. Resolves once recorded: if the store is
   * down it rejects (StoreUnavailableError), so that the service retries (1 s, 5 s, 15 s) instead of
   * the hint being lost. A repeated delivery is recorded as such and dropped.
   */
  async receive(body: string): Promise<void> {
    const { store, logger, count } = this.options;
    const { transactionId, kept } = readHint(body);
    const fresh = await store.recordWebhook({
      dedupeKey: createHash('sha256').update(body).digest('hex'),
      transactionId,
      receivedAt: Date.now(),
      body: kept,
    });
    count(fresh ? 'accepted' : 'duplicate');
    if (fresh)
      void this.followHint(transactionId).catch((error: unknown) =>
        logger.error('webhook handling failed', { error, transactionId }),
      );
    else logger.debug('webhook repeated; already handled', { transactionId });
  }

  private async followHint(transactionId: string | null): Promise<void> {
    const { store, refresher, logger } = this.options;
    const payment = transactionId ? await store.paymentById(transactionId) : undefined;
    if (!transactionId || !payment)
      return logger.info('webhook names no payment of this shop; ignored', { transactionId });
    // A final status never changes again, so there is nothing to read.
    if (isTerminalStatus(payment.status))
      return logger.debug('webhook for a final payment; nothing to read', { transactionId });
    await refresher.hinted(payment);
  }
}

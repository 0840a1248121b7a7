import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { isTerminalStatus } from '../../schemas/pay.ts';
import type { ProxyServices } from '../services.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `POST /hooks/payments/<KASSA_WEBHOOK_SECRET>`. Upstream events are unsigned, so an event is only a
 * hint (webhooks are unsigned, so only the upstream's own answer counts): it is recorded (which deduplicates it) and answered at once, then the
 * payment is re-read from the payment service; nothing in the event itself ever changes a status.
 */
/** The payment an event names, if its body can be read at all. */
function transactionIdOf(body: string): string | null {
  try {
    const event = JSON.parse(body) as { transactionId?: unknown };
    return typeof event.transactionId === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(event.transactionId)
      ? event.transactionId
      : null;
  } catch {
    return null;
  }
}

export function webhookRoutes({ config, store, refresher, logger }: ProxyServices): Hono {
  const app = new Hono();
  const expected = digest(config.webhookSecret);

  app.post('/hooks/payments/:secret', async (c) => {
    if (!timingSafeEqual(digest(c.req.param('secret')), expected)) return c.json({ error: 'Not found' }, 404);
    const body = await c.req.text().catch(() => '');
    const transactionId = transactionIdOf(body);
    // Recorded before the answer: if the store is down, the 503 makes the service retry (1 s, 5 s, 15 s)
    // instead of the hint being lost. A repeated delivery is answered and dropped here.
    const fresh = await store.recordWebhook({
      dedupeKey: createHash('sha256').update(body).digest('hex'),
      transactionId,
      receivedAt: Date.now(),
      body: body.slice(0, 8_192),
    });
    if (fresh)
      void followHint(transactionId).catch((error: unknown) =>
        logger.error('webhook handling failed', { error, transactionId }),
      );
    else logger.debug('webhook repeated; already handled', { transactionId });
    return c.json({ received: true });
  });
  app.all('/hooks/*', (c) => c.json({ error: 'Not found' }, 404));

  async function followHint(transactionId: string | null): Promise<void> {
    const payment = transactionId ? await store.paymentById(transactionId) : undefined;
    if (!transactionId || !payment)
      return logger.info('webhook names no payment of this shop; ignored', { transactionId });
    // A final status never changes again, so there is nothing to read.
    if (isTerminalStatus(payment.status))
      return logger.debug('webhook for a final payment; nothing to read', { transactionId });
    await refresher.refreshNow(transactionId, 'webhook');
  }

  return app;
}

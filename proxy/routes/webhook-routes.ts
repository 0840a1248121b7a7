import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { isTerminalStatus } from '../../schemas/pay.ts';
import type { ProxyServices } from '../services.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `POST /hooks/payments/<KASSA_WEBHOOK_SECRET>`. Upstream events are unsigned, so an event is only a
 * hint (trust boundary 4): it is answered at once, deduplicated, and then the payment is re-read from
 * the payment service; nothing in the event itself ever changes a status.
 */
export function webhookRoutes({ config, store, refresher, logger }: ProxyServices): Hono {
  const app = new Hono();
  const expected = digest(config.webhookSecret);

  app.post('/hooks/payments/:secret', async (c) => {
    if (!timingSafeEqual(digest(c.req.param('secret')), expected)) return c.json({ error: 'Not found' }, 404);
    const body = await c.req.text().catch(() => '');
    void handleHint(body).catch((error: unknown) => logger.error('webhook handling failed', { error }));
    return c.json({ received: true });
  });
  app.all('/hooks/*', (c) => c.json({ error: 'Not found' }, 404));

  async function handleHint(body: string): Promise<void> {
    let transactionId: string | null = null;
    try {
      const event = JSON.parse(body) as { transactionId?: unknown };
      if (typeof event.transactionId === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(event.transactionId)) transactionId = event.transactionId;
    } catch {
      // An unreadable event carries no hint; it is still recorded below.
    }
    const fresh = await store.recordWebhook({ dedupeKey: createHash('sha256').update(body).digest('hex'), transactionId, receivedAt: Date.now(), body: body.slice(0, 8_192) });
    if (!fresh) return logger.debug('webhook repeated; already handled', { transactionId });
    const payment = transactionId ? await store.paymentById(transactionId) : undefined;
    if (!transactionId || !payment) return logger.info('webhook names no payment of this shop; ignored', { transactionId });
    // A final status never changes again, so there is nothing to read.
    if (isTerminalStatus(payment.status)) return logger.debug('webhook for a final payment; nothing to read', { transactionId });
    await refresher.refreshNow(transactionId, 'webhook');
  }

  return app;
}

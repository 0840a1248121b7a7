import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { isTerminalStatus } from '../../schemas/pay.ts';
import { webhookReceiptSchema } from '../../schemas/proxy-api.ts';
import { JSON_MAX_DEPTH, nestsDeeperThan } from '../../server-kit/json-body.ts';
import { findKeyMaterial } from '../http/middleware/refuse-private-keys.ts';
import type { ProxyServices } from '../services.ts';
import { webhookSecretExample } from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { STORE_DOWN } from '../http/openapi/problems.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

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

/**
 * `POST /hooks/payments/<KASSA_WEBHOOK_SECRET>`. Upstream events are unsigned, so an event is only a
 * hint: it is recorded (which deduplicates it) and answered at once, then the payment is re-read from
 * the payment service; nothing in the event itself ever changes a status.
 */
export function webhookRoutes({ config, store, refresher, logger, metrics }: ProxyServices): Hono {
  const app = new Hono();
  const expected = digest(config.webhookSecret);

  app.post('/hooks/payments/:webhookSecret', async (c) => {
    if (!timingSafeEqual(digest(c.req.param('webhookSecret')), expected)) {
      metrics.webhook('forged');
      return c.json({ error: 'Not found' }, 404);
    }
    const body = await c.req.text().catch(() => '');
    const { transactionId, kept } = readHint(body);
    // Recorded before the answer: if the store is down, the 503 makes the service retry (1 s, 5 s, 15 s)
    // instead of the hint being lost. A repeated delivery is answered and dropped here.
    const fresh = await store.recordWebhook({
      dedupeKey: createHash('sha256').update(body).digest('hex'),
      transactionId,
      receivedAt: Date.now(),
      body: kept,
    });
    metrics.webhook(fresh ? 'accepted' : 'duplicate');
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
    await refresher.hinted(payment);
  }

  return app;
}

export const webhookOperations: ApiOperations = {
  'POST /hooks/payments/{webhookSecret}': {
    operationId: 'receivePaymentWebhook',
    summary: 'The payment service’s webhook',
    description:
      'Where the payment service sends `payment.status_updated`. Its events are unsigned, so an event is only a hint: it is recorded (which de-duplicates it) and answered at once, then the payment is read again from the service; nothing in the event itself ever changes a status.',
    audience: 'infrastructure',
    access: {
      auth: 'public',
      because:
        'the payment service sends no credential; the secret path segment admits it, and nothing in the body is believed.',
    },
    params: {
      webhookSecret: {
        description: 'KASSA_WEBHOOK_SECRET, as registered with the payment service',
        example: webhookSecretExample,
      },
    },
    request: {
      schema: z.record(z.string(), z.unknown()),
      example: { event: 'payment.status_updated', transactionId: 'txn_4b1f0c8e', status: 'COMPLETED' },
    },
    responses: {
      200: {
        description: 'Recorded (or a repeat, dropped)',
        json: { schema: webhookReceiptSchema, example: { received: true } },
      },
    },
    errors: {
      404: 'Not found: the path’s secret is wrong (answered like any unknown path)',
      503: `${STORE_DOWN}: the payment service retries, so the hint is not lost`,
    },
  },
};

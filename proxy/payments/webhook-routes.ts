import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { webhookReceiptSchema } from '../../schemas/proxy-api.ts';
import type { ProxyServices } from '../services.ts';
import { webhookSecretExample } from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { STORE_DOWN } from '../http/openapi/problems.ts';
import { WebhookIntake } from './webhook-intake.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `POST /hooks/payments/<KASSA_WEBHOOK_SECRET>`: the secret path admits the payment service's
 * webhook, which is recorded and answered at once (payments/webhook-intake.ts follows it up).
 */
export function webhookRoutes({ config, store, refresher, logger, metrics }: ProxyServices): Hono {
  const app = new Hono();
  const expected = digest(config.webhookSecret);
  const intake = new WebhookIntake({ store, refresher, logger, count: (result) => metrics.webhook(result) });

  app.post('/hooks/payments/:webhookSecret', async (c) => {
    if (!timingSafeEqual(digest(c.req.param('webhookSecret')), expected)) {
      metrics.webhook('forged');
      return c.json({ error: 'Not found' }, 404);
    }
    await intake.receive(await c.req.text().catch(() => ''));
    return c.json({ received: true });
  });
  app.all('/hooks/*', (c) => c.json({ error: 'Not found' }, 404));

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

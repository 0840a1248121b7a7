import { Hono, type Context } from 'hono';
import { isRecord, readJsonBody } from '../../server-kit/json-body.ts';
import type { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { isStatusToken } from '../../lib/status-token.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import {
  checkoutPaymentRequestSchema,
  IDEMPOTENCY_KEY_PATTERN,
  openAmountPaymentRequestSchema,
  type PaymentStatusView,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http-problem.ts';
import { browserOrigins } from '../middleware/browser-origins.ts';
import { clientRateLimit } from '../middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../middleware/refuse-private-keys.ts';
import { bearerCheck } from '../middleware/require-bearer.ts';
import type { PaymentRequest } from '../payments/payment-starter.ts';
import { publicOrigin } from '../payments/return-url.ts';
import { statusView } from '../payments/status-view.ts';
import type { ProxyServices } from '../services.ts';
import type { Payment } from '../store/store.ts';
import { PRIVATE_READ } from './cache-control.ts';
import { stateStream } from './sse.ts';

/** What tells one status of a payment from the next, for its stream. */
const statusKey = (view: PaymentStatusView) =>
  `${view.status}.${view.networkStatus ?? ''}.${view.updatedAt}.${view.retryable}`;

/** The customer's routes: start a payment, read its status, follow it live. Browser-facing, so CORS-guarded. */
export function paymentRoutes(services: ProxyServices, options: { readLimiter: SlidingWindowLimiter }): Hono {
  const {
    config,
    store,
    starter,
    refresher,
    watch,
    coordination,
    checkouts,
    tokens,
    statusCache,
    sseHeartbeatMs,
    metrics,
    logger,
  } = services;
  const app = new Hono();
  const isMerchant = bearerCheck(config.merchantKey);
  const browser = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['GET', 'POST'],
    headers: ['Content-Type', 'Idempotency-Key'],
  });
  const reads = clientRateLimit({
    name: 'reads',
    limit: config.rateLimit,
    trustProxy: config.trustProxy,
    limiter: options.readLimiter,
  });
  const creates = clientRateLimit({ name: 'creates', limit: config.createRateLimit, trustProxy: config.trustProxy });

  const paymentFor = async (c: Context): Promise<Payment> => {
    const token = c.req.param('statusToken') ?? '';
    const payment = isStatusToken(token) ? await store.paymentByToken(token) : undefined;
    if (!payment) throw new HttpProblem(404, 'Unknown payment status link');
    return payment;
  };
  const viewOf = async (payment: Payment): Promise<PaymentStatusView> =>
    statusView(payment, payment.checkoutId ? await store.getCheckout(payment.checkoutId) : undefined);

  app.options('/api/payments', browser);
  app.post('/api/payments', browser, creates, refusePrivateKeys({ freeText: ['returnUrl'] }), async (c) => {
    const key = c.req.header('Idempotency-Key');
    if (!key || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new HttpProblem(
        400,
        'Send an Idempotency-Key header: 8 to 255 characters of A-Z a-z 0-9 _ . : -, the same for retries of one payment',
      );
    }
    const started = await starter.start(key, await paymentRequest(c), publicOrigin(config.publicUrl, c.req.url));
    return c.json(started.body, started.status);
  });

  app.options('/api/payments/status/:statusToken', browser);
  app.get('/api/payments/status/:statusToken', browser, reads, async (c) => {
    let entry = statusCache.get(c.req.param('statusToken'));
    if (!entry) {
      const payment = await paymentFor(c);
      entry = statusCache.set(payment, await viewOf(payment));
    }
    // Served from the store; a re-read upstream happens behind it when due, and pushes to streams.
    void refresher.refreshIfDue(entry.payment, 'watch');
    c.header('Cache-Control', PRIVATE_READ);
    return c.body(entry.json, 200, { 'Content-Type': 'application/json' });
  });

  app.options('/api/payments/status/:statusToken/events', browser);
  app.get('/api/payments/status/:statusToken/events', browser, reads, async (c) => {
    const payment = await paymentFor(c);
    const current = async () => {
      const latest = await store.paymentById(payment.transactionId);
      return latest && viewOf(latest);
    };
    return stateStream<PaymentStatusView>(c, {
      event: 'status',
      listen: (send) => {
        const unsubscribe = coordination.bus.subscribe(payment.transactionId, send);
        const unresync = coordination.bus.onResync(
          () =>
            void current().then(
              (view) => view && send(view),
              () => undefined,
            ),
        );
        const unwatch = isTerminalStatus(payment.status) ? () => undefined : watch.watch(payment.transactionId);
        return () => {
          unsubscribe();
          unresync();
          unwatch();
        };
      },
      current,
      key: statusKey,
      final: (view) => isTerminalStatus(view.status),
      heartbeatMs: sseHeartbeatMs,
      open: metrics.sseConnections,
      logger,
    });
  });

  app.options('/api/checkouts/:checkoutId', browser);
  app.get('/api/checkouts/:checkoutId', browser, reads, async (c) => {
    const authorization = c.req.header('Authorization');
    // The merchant's server reads the same URL with its key and gets its own view; a wrong key is refused.
    if (authorization !== undefined && !isMerchant(authorization))
      throw new HttpProblem(401, 'Send Authorization: Bearer <KASSA_MERCHANT_KEY>, or no Authorization at all');
    const checkout = await checkouts.get(c.req.param('checkoutId'));
    if (!checkout) throw new HttpProblem(404, 'Unknown checkout');
    // The merchant's own view is for its server, which has no page to keep.
    c.header('Cache-Control', authorization === undefined ? PRIVATE_READ : 'no-store');
    const environment = await tokens.environment();
    return c.json(
      authorization === undefined
        ? await checkouts.view(checkout, environment)
        : await checkouts.merchantView(checkout, environment),
    );
  });

  app.options('/api/config', browser);
  app.get('/api/config', browser, reads, async (c) =>
    c.json({
      environment: await tokens.environment(),
      openAmount: config.openAmount && {
        min: config.openAmount.min,
        max: config.openAmount.max,
        currencyCode: config.openAmount.currencyCode,
      },
    }),
  );

  return app;
}

/** A checkout payment, or (where enabled) an open amount; an amount next to a checkoutId is refused. */
async function paymentRequest(c: Context): Promise<PaymentRequest> {
  const body = await readJsonBody(c);
  if (!body.ok) throw new HttpProblem(400, body.error);
  if (!isRecord(body.value)) throw new HttpProblem(400, 'Request body must be a JSON object');
  if ('checkoutId' in body.value || !('amount' in body.value)) {
    const parsed = checkoutPaymentRequestSchema.safeParse(body.value);
    if (!parsed.success) throw new HttpProblem(400, describeZodError(parsed.error));
    return { kind: 'checkout', ...parsed.data };
  }
  const parsed = openAmountPaymentRequestSchema.safeParse(body.value);
  if (!parsed.success) throw new HttpProblem(400, describeZodError(parsed.error));
  return { kind: 'open', ...parsed.data };
}

import { Hono, type Context } from 'hono';
import { isRecord, readJsonBody } from '../../server-kit/json-body.ts';
import type { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { isStatusToken } from '../../lib/status-token.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import { z } from 'zod';
import {
  checkoutPaymentRequestSchema,
  checkoutSchema,
  createPaymentRequestSchema,
  createPaymentResponseSchema,
  IDEMPOTENCY_KEY_PATTERN,
  merchantCheckoutSchema,
  openAmountPaymentRequestSchema,
  paymentStatusSchema,
  publicConfigSchema,
  type PaymentStatusView,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { NotFoundError } from '../domain/domain-errors.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { merchantAuth } from './merchant-auth.ts';
import {
  checkoutExample,
  createdPaymentExample,
  createPaymentExample,
  paymentStatusExample,
  publicConfigExample,
} from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, BROWSER_ERRORS, FOREIGN_ORIGIN, RATE_LIMITED, STORE_DOWN } from '../http/openapi/problems.ts';
import type { PaymentRequest } from './payment-starter.ts';
import { ownOrigin, publicOrigin } from './return-url.ts';
import { statusView } from './status-view.ts';
import type { ProxyServices } from '../services.ts';
import type { Payment } from '../state/store.ts';
import { PRIVATE_READ } from '../http/cache-control.ts';
import { stateStream } from '../http/sse.ts';

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
  const merchantReads = merchantAuth({ keys: services.merchantKeys, scope: 'checkouts:read', optional: true });
  const browser = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['GET', 'POST'],
    headers: ['Content-Type', 'Idempotency-Key'],
  });
  // A link's page on this proxy (/l/<code>) pays the checkout it made: its origin may start payments too.
  const paying = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['POST'],
    headers: ['Content-Type', 'Idempotency-Key'],
    ownOrigin: ownOrigin(config.publicUrl),
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
    if (!payment) throw new NotFoundError('Unknown payment status link');
    return payment;
  };
  const viewOf = async (payment: Payment): Promise<PaymentStatusView> =>
    statusView(payment, payment.checkoutId ? await store.getCheckout(payment.checkoutId) : undefined);

  app.options('/api/payments', paying);
  app.post('/api/payments', paying, creates, refusePrivateKeys({ freeText: ['returnUrl'] }), async (c) => {
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
  // The merchant's server reads the same URL with its key and gets its own view; a wrong key is refused.
  app.get('/api/checkouts/:checkoutId', browser, reads, merchantReads, async (c) => {
    const authorization = c.req.header('Authorization');
    const checkout = await checkouts.get(c.req.param('checkoutId'));
    if (!checkout) throw new NotFoundError('Unknown checkout');
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

const STATUS_TOKEN = {
  statusToken: {
    description: 'The payment’s statusToken, from createPayment: whoever holds it can read the payment',
    example: createdPaymentExample.statusToken,
  },
};
const UNKNOWN_LINK = 'Unknown payment status link';
const STATUS_TOKEN_ACCESS = {
  auth: 'public',
  because: 'the unguessable statusToken in the path is the capability to read this payment.',
} as const;

export const paymentOperations: ApiOperations = {
  'GET /api/checkouts/{checkoutId}': {
    operationId: 'getCheckout',
    summary: 'Read a checkout',
    description:
      'Without credentials, what the customer may see (Checkout); with the merchant key, the merchant’s view (MerchantCheckout), as createCheckout answered.',
    audience: ['merchant', 'browser'],
    access: { auth: 'merchantKeyOptional' },
    params: {
      checkoutId: { description: 'The checkout’s id, from createCheckout', example: checkoutExample.checkoutId },
    },
    responses: {
      200: {
        description: 'The checkout: Checkout without credentials, MerchantCheckout with the merchant key',
        json: { schema: z.union([checkoutSchema, merchantCheckoutSchema]), example: checkoutExample },
      },
    },
    errors: {
      ...BROWSER_ERRORS,
      401: 'Send Authorization: Bearer <KASSA_MERCHANT_KEY or a merchant key>, or no Authorization at all',
      403: `${BROWSER_ERRORS[403]}; or the merchant key lacks the scope checkouts:read`,
      404: 'Unknown checkout',
    },
  },
  'GET /api/config': {
    operationId: 'getConfig',
    summary: 'What the widget needs to know about this proxy',
    description: 'The environment (sandbox or live) and whether customers may choose the amount, within which bounds.',
    audience: 'browser',
    access: { auth: 'public', because: 'it holds nothing secret, and the widget asks for it from any shop page.' },
    responses: {
      200: { description: 'The settings', json: { schema: publicConfigSchema, example: publicConfigExample } },
    },
    errors: BROWSER_ERRORS,
  },
  'POST /api/payments': {
    operationId: 'createPayment',
    summary: 'Start a payment',
    description:
      'Pays a checkout (or, where KASSA_OPEN_AMOUNT allows, an amount the customer chose) at the customer’s bank: send the customer to `flowUrl`, keep `statusToken` to follow the payment. Double clicks, reloads and concurrent tabs with one Idempotency-Key, or for one checkout, all end in one payment.',
    audience: 'browser',
    access: {
      auth: 'public',
      because:
        'the customer’s browser holds no credential. The amount comes from the checkout the merchant’s server created, never from the browser (open amounts only within the configured bounds).',
    },
    idempotencyKey: 'required',
    request: { schema: createPaymentRequestSchema, example: createPaymentExample },
    responses: {
      201: {
        description: 'The payment was started (or a retry with the same Idempotency-Key finds it)',
        json: { schema: createPaymentResponseSchema, example: createdPaymentExample },
      },
      200: {
        description: 'A payment of this checkout is already under way: it is answered again',
        json: { schema: createPaymentResponseSchema, example: createdPaymentExample },
      },
    },
    errors: {
      ...BROWSER_ERRORS,
      400: `${BAD_BODY}; or the Idempotency-Key is missing or malformed, the returnUrl is not one the shop allows, or an open amount is out of bounds`,
      403: `${FOREIGN_ORIGIN}; or open amounts are not enabled`,
      404: 'Unknown checkout',
      409: 'This checkout is already paid, or another request for it or with this Idempotency-Key is still under way (Retry-After)',
      410: 'This checkout has expired',
      422: 'This Idempotency-Key was already used for a different payment request',
      429: `${RATE_LIMITED}; or the payment service asks Kassa to slow down`,
      502: 'The payment service is not answering, refused this payment, or returned a payment page this shop does not trust',
      503: `${STORE_DOWN}; or payments are unavailable (the payment service refuses Kassa’s credentials)`,
    },
  },
  'GET /api/payments/status/{statusToken}': {
    operationId: 'getPaymentStatus',
    summary: 'Read a payment’s status',
    description:
      'The customer’s view of their payment, served from the store; Kassa asks the payment service again behind it when due. Poll it, or follow streamPaymentStatus.',
    audience: 'browser',
    access: STATUS_TOKEN_ACCESS,
    params: STATUS_TOKEN,
    responses: {
      200: { description: 'The payment', json: { schema: paymentStatusSchema, example: paymentStatusExample } },
    },
    errors: { ...BROWSER_ERRORS, 404: UNKNOWN_LINK },
  },
  'GET /api/payments/status/{statusToken}/events': {
    operationId: 'streamPaymentStatus',
    summary: 'Follow a payment’s status live',
    description:
      'Server-Sent Events: `status` events whose data is a PaymentStatus, the current one first, then each change; the stream closes after a final status.',
    audience: 'browser',
    access: STATUS_TOKEN_ACCESS,
    params: STATUS_TOKEN,
    responses: {
      200: {
        description: 'The stream',
        text: {
          contentType: 'text/event-stream',
          description: '`event: status`, `data:` a PaymentStatus as JSON',
          example: `retry: 3000\n\nevent: status\nid: COMPLETED.PAYMENT_EXECUTED_CREDITED.2026-11-23T18:01:00.000Z.false\ndata: ${JSON.stringify(paymentStatusExample)}\n\n`,
        },
      },
    },
    errors: { ...BROWSER_ERRORS, 404: UNKNOWN_LINK },
  },
};

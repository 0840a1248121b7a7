import { Hono, type Context } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  createPurchaseRequestSchema,
  isFinalPurchaseState,
  purchaseListQuerySchema,
  quoteRequestSchema,
  refundPurchaseRequestSchema,
  type PurchaseView,
} from '../../schemas/onramp.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http-problem.ts';
import { browserOrigins } from '../middleware/browser-origins.ts';
import { clientRateLimit } from '../middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../middleware/refuse-private-keys.ts';
import { requireBearer } from '../middleware/require-bearer.ts';
import { auditView, operatorPurchaseView } from '../onramp/purchase-views.ts';
import type { ProxyEnv } from '../proxy-env.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidPurchaseCursorError, type PurchaseRecord } from '../store/purchases.ts';
import { upstreamProblem } from '../upstream-problem.ts';
import { PRIVATE_READ } from './cache-control.ts';
import { stateStream } from './sse.ts';

/** Purchase tokens are 32 random bytes, base64url. */
const PURCHASE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const PURCHASE_ID = /^pur_[A-Za-z0-9]{20}$/;
/** What tells one view of a purchase from the next, for its stream. */
const viewKey = (view: PurchaseView) => `${view.state}.${view.updatedAt}.${view.payment.status ?? ''}`;
/** A purchase stream also looks at the store this often, whatever the signal says (a safety net). */
const STREAM_RECHECK_MS = 10_000;

/**
 * The on-ramp's routes. Customers' pages (CORS, rate limited): what can be bought, a quote with the
 * message to sign, the purchase, and its status, live. Operators: the purchases, and what to do with a
 * delayed one. With the on-ramp off, every one answers 404 saying so.
 */
export function onrampRoutes(services: ProxyServices): Hono<ProxyEnv> {
  const { config, onramp, coordination, sseHeartbeatMs, metrics, logger } = services;
  const app = new Hono<ProxyEnv>();
  if (!onramp) {
    app.all('/api/onramp/*', () => {
      throw new HttpProblem(404, 'The on-ramp is not enabled (KASSA_ONRAMP_COINS)');
    });
    return app;
  }
  const browser = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['GET', 'POST'],
    headers: ['Content-Type', 'Idempotency-Key'],
  });
  const reads = clientRateLimit({ name: 'onramp-reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  const creates = clientRateLimit({
    name: 'onramp-creates',
    limit: config.createRateLimit,
    trustProxy: config.trustProxy,
  });
  const operator = requireBearer({ token: config.operatorToken, realm: 'KASSA_OPERATOR_TOKEN' });
  const upstream = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw upstreamProblem(error, 'client');
    }
  };

  const byToken = async (c: Context): Promise<PurchaseRecord> => {
    const token = c.req.param('purchaseToken') ?? '';
    const purchase = PURCHASE_TOKEN.test(token) ? await services.store.purchases.byToken(token) : undefined;
    if (!purchase) throw new HttpProblem(404, 'Unknown purchase link');
    return purchase;
  };
  const byId = async (c: Context): Promise<PurchaseRecord> => {
    const id = c.req.param('purchaseId') ?? '';
    const purchase = PURCHASE_ID.test(id) ? await services.store.purchases.byId(id) : undefined;
    if (!purchase) throw new HttpProblem(404, 'No purchase has this id');
    return purchase;
  };
  const operatorView = async (purchase: PurchaseRecord) =>
    operatorPurchaseView(
      purchase,
      await onramp.service.paymentStatus(purchase),
      await onramp.service.explorer(purchase),
    );

  app.options('/api/onramp/*', browser);

  app.get('/api/onramp/config', browser, reads, async (c) => {
    c.header('Cache-Control', 'private, max-age=30');
    return c.json(await upstream(() => onramp.catalog.config()));
  });

  app.post('/api/onramp/quotes', browser, creates, refusePrivateKeys({ scanValues: true }), async (c) => {
    const origin = c.req.header('Origin');
    if (!origin) throw new HttpProblem(400, 'A quote is for a page: the request must carry its Origin');
    const parsed = await parseJsonBody(c, quoteRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    return c.json(await upstream(() => onramp.service.quote(parsed.data, origin)), 201);
  });

  app.post('/api/onramp/purchases', browser, creates, refusePrivateKeys(), async (c) => {
    const key = c.req.header('Idempotency-Key');
    if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key))
      throw new HttpProblem(400, 'Idempotency-Key must be 8 to 255 characters of A-Z a-z 0-9 _ . : -');
    const parsed = await parseJsonBody(c, createPurchaseRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const { purchase, replayed } = await upstream(() =>
      onramp.service.purchase({ ...parsed.data, idempotencyKey: key ?? null }),
    );
    return c.json(
      { purchase: await onramp.service.view(purchase), purchaseToken: purchase.purchaseToken },
      replayed ? 200 : 201,
    );
  });

  app.get('/api/onramp/status/:purchaseToken', browser, reads, async (c) => {
    c.header('Cache-Control', PRIVATE_READ);
    return c.json(await onramp.service.view(await byToken(c)));
  });

  app.get('/api/onramp/status/:purchaseToken/events', browser, reads, async (c) => {
    const { purchaseId } = await byToken(c);
    const current = async () => {
      const latest = await services.store.purchases.byId(purchaseId);
      return latest && onramp.service.view(latest);
    };
    return stateStream<PurchaseView>(c, {
      event: 'purchase',
      listen: (send) => {
        const look = () =>
          void current().then(
            (view) => view && send(view),
            () => undefined,
          );
        // Signalled by the mint worker on every change, its payment's included.
        const unsubscribe = coordination.purchaseChanges.subscribe(purchaseId, look);
        const recheck = setInterval(look, STREAM_RECHECK_MS);
        recheck.unref();
        return () => {
          unsubscribe();
          clearInterval(recheck);
        };
      },
      current,
      key: viewKey,
      final: (view) => isFinalPurchaseState(view.state),
      heartbeatMs: sseHeartbeatMs,
      open: metrics.sseConnections,
      logger,
    });
  });

  app.get('/api/onramp/purchases', operator, async (c) => {
    const query = purchaseListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    let page;
    try {
      page = await services.store.purchases.list(query.data);
    } catch (error) {
      if (error instanceof InvalidPurchaseCursorError) throw new HttpProblem(400, error.message);
      throw error;
    }
    return c.json({ purchases: await Promise.all(page.purchases.map(operatorView)), nextCursor: page.nextCursor });
  });

  app.get('/api/onramp/purchases/:purchaseId', operator, async (c) => {
    const purchase = await byId(c);
    const audit = await services.store.purchases.audit(purchase.purchaseId);
    return c.json({ ...(await operatorView(purchase)), audit: audit.map(auditView) });
  });

  app.post('/api/onramp/purchases/:purchaseId/retry-mint', operator, async (c) => {
    const { purchaseId } = await byId(c);
    const purchase = await onramp.operations.retryMint(purchaseId, c.get('requestId'));
    return c.json(await operatorView(purchase));
  });

  app.post(
    '/api/onramp/purchases/:purchaseId/refund',
    operator,
    refusePrivateKeys({ freeText: ['note'] }),
    async (c) => {
      const { purchaseId } = await byId(c);
      const parsed = await parseJsonBody(c, refundPurchaseRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const purchase = await onramp.operations.refund(purchaseId, parsed.data.note, c.get('requestId'));
      return c.json(await operatorView(purchase));
    },
  );

  return app;
}

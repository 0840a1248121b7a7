import { Hono, type Context } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import {
  createdPurchaseSchema,
  createPurchaseRequestSchema,
  isFinalPurchaseState,
  onrampConfigSchema,
  purchaseSchema,
  quoteRequestSchema,
  quoteSchema,
  type PurchaseView,
} from '../../schemas/onramp.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { NotFoundError, callUpstream } from '../domain/domain-errors.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import {
  createdPurchaseExample,
  createPurchaseExample,
  onrampConfigExample,
  purchaseExample,
  quoteExample,
  quoteRequestExample,
} from './onramp-examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, BROWSER_ERRORS, STORE_DOWN } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import type { PurchaseRecord } from '../state/purchases.ts';
import { PRIVATE_READ } from '../http/cache-control.ts';
import { stateStream } from '../http/sse.ts';

/** Purchase tokens are 32 random bytes, base64url. */
const PURCHASE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** What tells one view of a purchase from the next, for its stream. */
const viewKey = (view: PurchaseView) => `${view.state}.${view.updatedAt}.${view.payment.status ?? ''}`;
/** A purchase stream also looks at the store this often, whatever the signal says (a safety net). */
const STREAM_RECHECK_MS = 10_000;

/**
 * The on-ramp's routes for customers' pages (CORS, rate limited): what can be bought, a quote with the
 * message to sign, the purchase, and its status, live. Mounted only when the on-ramp is on.
 */
export function onrampRoutes(services: ProxyServices): Hono {
  const { config, onramp, coordination, sseHeartbeatMs, metrics, logger } = services;
  const app = new Hono();
  if (!onramp) throw new Error('the on-ramp routes are mounted only when the on-ramp is on');
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

  const byToken = async (c: Context): Promise<PurchaseRecord> => {
    const token = c.req.param('purchaseToken') ?? '';
    const purchase = PURCHASE_TOKEN.test(token) ? await services.store.purchases.byToken(token) : undefined;
    if (!purchase) throw new NotFoundError('Unknown purchase link');
    return purchase;
  };
  app.options('/api/onramp/*', browser);

  app.get('/api/onramp/config', browser, reads, async (c) => {
    c.header('Cache-Control', 'private, max-age=30');
    return c.json(await callUpstream('client', () => onramp.catalog.config()));
  });

  app.post('/api/onramp/quotes', browser, creates, refusePrivateKeys({ scanValues: true }), async (c) => {
    const origin = c.req.header('Origin');
    if (!origin) throw new HttpProblem(400, 'A quote is for a page: the request must carry its Origin');
    const parsed = await parseJsonBody(c, quoteRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    return c.json(await callUpstream('client', () => onramp.service.quote(parsed.data, origin)), 201);
  });

  app.post('/api/onramp/purchases', browser, creates, refusePrivateKeys(), async (c) => {
    const key = c.req.header('Idempotency-Key');
    if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key))
      throw new HttpProblem(400, 'Idempotency-Key must be 8 to 255 characters of A-Z a-z 0-9 _ . : -');
    const parsed = await parseJsonBody(c, createPurchaseRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const { purchase, replayed } = await callUpstream('client', () =>
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

  return app;
}

/**
 * With the on-ramp off, its paths answer 404 saying so, with CORS for the shop's pages: an element on a
 * page can then tell "not available here" from "cannot reach the proxy". Not in the OpenAPI document:
 * the on-ramp's operations are described only where they exist.
 */
export function onrampOffRoutes({ config }: ProxyServices): Hono {
  const app = new Hono();
  const browser = browserOrigins({ origins: config.allowedOrigins, methods: ['GET', 'POST'] });
  app.options('/api/onramp/*', browser);
  app.on(['GET', 'POST'], '/api/onramp/*', browser, () => {
    throw new NotFoundError('Buying stablecoins is not enabled on this proxy (KASSA_ONRAMP_COINS)');
  });
  return app;
}

const PURCHASE_TOKEN_PARAM = {
  purchaseToken: {
    description: 'The purchaseToken the purchase was made with: the customer’s link to it (`?kassa_purchase=`)',
    example: createdPurchaseExample.purchaseToken,
  },
};
const LINK_ACCESS = {
  auth: 'public',
  because: 'the unguessable purchaseToken in the path is the capability to read this purchase.',
} as const;
const CUSTOMER_ACCESS = {
  auth: 'public',
  because:
    'the customer’s browser holds no credential; the wallet proves it is the customer’s by signing the quote’s message, and the price comes from the merchant’s settings, never from the browser.',
} as const;
const LISTING_DOWN = 'The cross-chain service’s chain listing cannot be read right now';

export const onrampOperations: ApiOperations = {
  'GET /api/onramp/config': {
    operationId: 'getOnrampConfig',
    summary: 'What can be bought here',
    description:
      'The coins, the chains they are delivered on (with each chain’s RPC URL and token), the bounds, the fee and the wallet limit.',
    audience: 'browser',
    access: { auth: 'public', because: 'it lists the merchant’s public offer for any shop page.' },
    responses: {
      200: { description: 'The offer', json: { schema: onrampConfigSchema, example: onrampConfigExample } },
    },
    errors: { ...BROWSER_ERRORS, 502: LISTING_DOWN },
  },
  'POST /api/onramp/quotes': {
    operationId: 'createOnrampQuote',
    summary: 'Price a purchase, and get the message the wallet signs',
    description:
      'Checks the coin, the chain, the bounds and the wallet’s 24-hour limit, and answers the price (tokens plus fee) and an EIP-4361 message naming the page’s site, the wallet, the chain and the purchase in words, valid for 10 minutes.',
    audience: 'browser',
    access: CUSTOMER_ACCESS,
    request: { schema: quoteRequestSchema, example: quoteRequestExample },
    responses: { 201: { description: 'The quote', json: { schema: quoteSchema, example: quoteExample } } },
    errors: {
      ...BROWSER_ERRORS,
      400: `${BAD_BODY}; or the request carries no Origin`,
      422: 'The coin or the chain is not offered, the amount is outside the bounds, or the wallet’s limit for 24 hours would be passed (details: limit, remaining, symbol)',
      502: LISTING_DOWN,
    },
  },
  'POST /api/onramp/purchases': {
    operationId: 'createOnrampPurchase',
    summary: 'Buy: prove the wallet, and get the checkout to pay',
    description:
      'Verifies the signature of the quote’s message (EIP-191, or EIP-1271 for a contract wallet on the quote’s chain) before anything is made, then makes the purchase and its checkout within the wallet’s limit. Pay the checkout with createPayment.',
    audience: 'browser',
    access: CUSTOMER_ACCESS,
    idempotencyKey: 'optional',
    request: { schema: createPurchaseRequestSchema, example: createPurchaseExample },
    responses: {
      201: {
        description: 'The purchase, and its token',
        json: { schema: createdPurchaseSchema, example: createdPurchaseExample },
      },
      200: {
        description: 'A retry with the same Idempotency-Key: the purchase it made',
        json: { schema: createdPurchaseSchema, example: createdPurchaseExample },
      },
    },
    errors: {
      ...BROWSER_ERRORS,
      400: `${BAD_BODY}; or the signature does not prove that the wallet signed this purchase’s message`,
      404: 'The quote is unknown',
      409: 'The quote was already used for a purchase',
      410: 'The quote has expired',
      422: 'The wallet’s limit for 24 hours would be passed, or the coin is no longer delivered on that chain',
      502: LISTING_DOWN,
      503: `${STORE_DOWN}; or the contract wallet’s chain cannot be asked to confirm the signature`,
    },
  },
  'GET /api/onramp/status/{purchaseToken}': {
    operationId: 'getPurchaseStatus',
    summary: 'Read a purchase',
    description: 'Its state, its payment’s status and, once delivered, the mint’s transaction on the chain.',
    audience: 'browser',
    access: LINK_ACCESS,
    params: PURCHASE_TOKEN_PARAM,
    responses: { 200: { description: 'The purchase', json: { schema: purchaseSchema, example: purchaseExample } } },
    errors: { ...BROWSER_ERRORS, 404: 'Unknown purchase link' },
  },
  'GET /api/onramp/status/{purchaseToken}/events': {
    operationId: 'streamPurchaseStatus',
    summary: 'Follow a purchase live',
    description:
      'Server-Sent Events: `purchase` events whose data is a Purchase, the current one first, then each change; the stream closes after a final state (delivered, failed, refunded).',
    audience: 'browser',
    access: LINK_ACCESS,
    params: PURCHASE_TOKEN_PARAM,
    responses: {
      200: {
        description: 'The stream',
        text: {
          contentType: 'text/event-stream',
          description: '`event: purchase`, `data:` a Purchase as JSON',
          example: `retry: 3000\n\nevent: purchase\nid: delivered.${purchaseExample.updatedAt}.COMPLETED\ndata: ${JSON.stringify(purchaseExample)}\n\n`,
        },
      },
    },
    errors: { ...BROWSER_ERRORS, 404: 'Unknown purchase link' },
  },
};

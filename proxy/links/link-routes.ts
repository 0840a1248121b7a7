import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { startLinkPaymentSchema } from '../../schemas/links.ts';
import { checkoutSchema, errorSchema } from '../../schemas/proxy-api.ts';
import { compressPages, sendEncoded } from '../../server-kit/encoded-files.ts';
import { jsonRequest } from '../http/json-request.ts';
import { encodedScript } from '../http/widget-routes.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import type { ApiOperation, ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, BROWSER_ERRORS, RATE_LIMITED, STORE_DOWN } from '../http/openapi/problems.ts';
import { STATUS_QUERY_PARAM, isStatusToken } from '../../lib/status-token.ts';
import { MisconfiguredError, NotFoundError } from '../domain/domain-errors.ts';
import { auditedForKey } from '../operator/dual-control.ts';
import { merchantAuth, type MerchantCaller } from '../payments/merchant-auth.ts';
import { ownOrigin, publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import { linkCheckoutExample, linkExample } from './link-examples.ts';
import { linkManagementOperations, mountLinkManagement } from './link-manage-routes.ts';
import { linkPage, linkPageLanguage, linkPageLook } from './link-page.ts';
import { linkPageScript } from './link-page-assets.ts';
import { qrPng, qrSvg } from './link-qr.ts';
import { payableNow } from './link-terms.ts';
import { LINK_QR, linkView } from './link-views.ts';

/** A link's QR code holds its address, which does not change: a day in any cache. */
const QR_CACHE = 'public, max-age=86400';
const IMMUTABLE = 'public, max-age=31536000, immutable';

const callerOf = (c: Context) => (c as Context<{ Variables: { merchant: MerchantCaller } }>).var.merchant;

/**
 * The merchant's server manages its links with a merchant key that has `links:manage` (every change
 * audited under the key's id); a customer on a link's page starts paying it, which makes an ordinary
 * checkout that the page then pays like any other.
 */
export function linkRoutes(services: ProxyServices): Hono {
  const { config, links, merchantKeys, checkouts, tokens, operators, store } = services;
  const app = new Hono();
  const manage = merchantAuth({ keys: merchantKeys, scope: 'links:manage' });
  mountLinkManagement(app, services, links, {
    base: '/api/links',
    guard: () => manage,
    creator: (c) => ({ kind: 'merchant-key', id: callerOf(c).keyId }),
    audit: (c, action, details) => auditedForKey(c, operators, callerOf(c).keyId, action, details),
  });

  // The link's own page on this proxy calls it, as may a page of the shop's.
  const browser = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['POST'],
    headers: ['Content-Type'],
    ownOrigin: ownOrigin(config.publicUrl),
  });
  const creates = clientRateLimit({ name: 'creates', limit: config.createRateLimit, trustProxy: config.trustProxy });
  app.options('/api/links/:code/checkout', browser);
  app.post('/api/links/:code/checkout', browser, creates, async (c) => {
    const { amount } = await jsonRequest(c, startLinkPaymentSchema);
    const { checkout } = await links.startPaying(c.req.param('code'), amount);
    return c.json(await checkouts.view(checkout, await tokens.environment()), 201);
  });

  const reads = clientRateLimit({ name: 'reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  const look = linkPageLook(config.merchant);
  /** Back from the bank (`?kassa_status=`): the checkout of this link that the payment paid, if it is one. */
  const receiptOf = async (code: string, statusToken: string | undefined) => {
    const payment = statusToken && isStatusToken(statusToken) ? await store.paymentByToken(statusToken) : undefined;
    if (!payment?.checkoutId) return undefined;
    return (await links.useOf(payment.checkoutId))?.code === code ? payment.checkoutId : undefined;
  };
  app.get('/l/:code', reads, compressPages(), async (c) => {
    const code = c.req.param('code');
    const link = await links.get(code).catch((error: unknown) => {
      // A browser gets a page saying so; anything else the proxy's usual error body.
      if (error instanceof NotFoundError && c.req.header('Accept')?.includes('text/html')) return undefined;
      throw error;
    });
    // An open link's bounds as it takes amounts now (within what its total cap has left).
    const view = link && linkView(payableNow(link), publicOrigin(config.publicUrl, c.req.url));
    // No link, no script: the page saying so runs nothing.
    const options = {
      look,
      script: link ? (await linkPageScript()).path : '',
      receiptOf: link && (await receiptOf(code, c.req.query(STATUS_QUERY_PARAM))),
    };
    c.header('Content-Security-Policy', look.csp);
    c.header('Vary', 'Accept-Language');
    c.header('Cache-Control', 'no-store');
    // The receipt's address holds the payment's status token: it is sent on to no one.
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(linkPage(view, linkPageLanguage(view, c.req.header('Accept-Language')), options), view ? 200 : 404);
  });

  app.get('/links/scripts/:file', async (c) => {
    const script = await linkPageScript();
    if (script.path !== c.req.path)
      throw new NotFoundError('No such file: the page that asked for it is older than this proxy');
    return sendEncoded(c, script.encoded, { type: 'text/javascript; charset=utf-8', cacheControl: IMMUTABLE });
  });

  /** The link's address, for its QR code: only where this proxy knows where browsers reach it. */
  const addressOf = async (c: Context, code: string) => {
    const view = linkView(await links.get(code), publicOrigin(config.publicUrl, c.req.url));
    if (view.url === null)
      throw new MisconfiguredError('Set KASSA_PUBLIC_URL: a link’s QR code holds its address on this proxy');
    return view.url;
  };
  for (const [file, type, image] of [
    [LINK_QR.svg, 'image/svg+xml', (url: string) => new TextEncoder().encode(qrSvg(url))],
    [LINK_QR.png, 'image/png', (url: string) => new Uint8Array(qrPng(url))],
  ] as const)
    app.get(`/l/:code/${file}`, reads, async (c) => {
      const code = c.req.param('code');
      const body = image(await addressOf(c, code));
      c.header('Cache-Control', QR_CACHE);
      c.header('Content-Disposition', `inline; filename="link-${code}-${file}"`);
      return c.body(body, 200, { 'Content-Type': type });
    });
  return app;
}

const LINK_PAGE = 'The link’s page, or a page saying why it takes no payment';

export const linkOperations: ApiOperations = {
  ...linkManagementOperations('/api/links', {
    audience: 'merchant',
    manage: { auth: 'merchantKey' },
    read: { auth: 'merchantKey' },
    idPrefix: '',
    errors: {
      401: 'Send Authorization: Bearer <KASSA_MERCHANT_KEY or a merchant key>',
      403: () => 'The merchant key lacks the scope links:manage',
    },
  }),
  'POST /api/links/{code}/checkout': {
    operationId: 'startLinkPayment',
    summary: 'Start paying a link',
    description:
      'The customer on the link’s page starts paying: one of the link’s uses is held for them before the bank (counted against its caps at once), and an ordinary checkout is made with the link’s amount (or the one typed, within the link’s bounds) and the use’s reference. The page then pays the checkout like any other (createPayment). A use held by a checkout that ends unpaid is given back. Refusals say why in `details.reason`: used-up, total-reached, paused, ended, expired, amount-out-of-bounds.',
    audience: 'browser',
    access: { auth: 'public', because: 'whoever has a link may pay it: its code is the capability' },
    params: { code: { description: 'The link’s code, from its URL', example: linkExample.code } },
    request: { schema: startLinkPaymentSchema, example: {} },
    responses: {
      201: { description: 'The checkout to pay', json: { schema: checkoutSchema, example: linkCheckoutExample } },
    },
    errors: {
      ...BROWSER_ERRORS,
      400: `${BAD_BODY}; or an amount the link does not take (fixed, or out of its bounds: details.reason amount-out-of-bounds)`,
      404: 'Unknown link',
      409: 'The link is paused (details.reason paused)',
      410: 'The link has ended or expired (details.reason ended, expired)',
      422: 'The link is used up, or one more payment would pass its total (details.reason used-up, total-reached)',
    },
  },
  'GET /l/{code}': {
    operationId: 'openLink',
    summary: 'Open a link’s page',
    description:
      'The link’s page, in its language or the browser’s (en, de, fr, es, nl): its title, description and amount, with Open Graph tags (title and amount) for a link shared in a chat, and `<kassa-checkout>` (from kassa.js) for a checkout its script makes with startLinkPayment, after the amount field of an open link; or why it takes no payment (paused, ended, expired, used up, total reached), in words. Back from the bank (`?kassa_status=`, for a link with no return URL) it shows the payment and its receipt.',
    audience: 'browser',
    access: { auth: 'public', because: 'whoever has a link may open it: its code is the capability.' },
    params: { code: { description: 'The link’s code, from its URL', example: linkExample.code } },
    query: {
      kassa_status: {
        description:
          'Back from the bank: the payment’s statusToken, whose receipt the page shows when the payment is one of this link’s',
        schema: z.string().optional(),
      },
    },
    responses: {
      200: { description: LINK_PAGE, text: { contentType: 'text/html' } },
      404: {
        description: 'Unknown link',
        json: { schema: errorSchema, example: { error: 'Unknown link' } },
        text: {
          contentType: 'text/html',
          description: `${LINK_PAGE}, saying there is no such link (for a browser that accepts text/html)`,
        },
      },
    },
    errors: { 429: RATE_LIMITED, 503: STORE_DOWN },
  },
  'GET /l/{code}/qr.svg': qrOperation('linkQrSvg', 'SVG', 'image/svg+xml'),
  'GET /l/{code}/qr.png': qrOperation('linkQrPng', 'PNG', 'image/png'),
  'GET /links/scripts/{file}': {
    operationId: 'linkPageScript',
    summary: 'The link page’s script',
    description: 'Named after its content’s hash, so cached for a year.',
    audience: 'browser',
    access: { auth: 'public', because: 'it is the page’s own script, the same for everyone.' },
    // The name changes with every build: the example is one such name (an older page's file is a 404).
    params: { file: { description: 'The file, as the page names it', example: 'link-3f9a1c2e7b4d5a60.js' } },
    responses: encodedScript('The script'),
    errors: { 404: 'No such file' },
  },
};

function qrOperation(operationId: string, format: string, contentType: string): ApiOperation {
  return {
    operationId,
    summary: `A link’s QR code (${format})`,
    description: `The link’s address as a QR code, a ${format} image to print or send (in the link’s \`qr\`). Needs KASSA_PUBLIC_URL (or a loopback request), since it holds the address browsers reach.`,
    audience: 'browser',
    access: { auth: 'public', because: 'it holds the link’s address, which whoever has the code has.' },
    params: { code: { description: 'The link’s code, from its URL', example: linkExample.code } },
    responses: { 200: { description: `The QR code (${format})`, text: { contentType } } },
    errors: {
      404: 'Unknown link',
      429: RATE_LIMITED,
      503: STORE_DOWN,
    },
  };
}

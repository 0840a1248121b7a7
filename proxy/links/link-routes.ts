import { Hono, type Context } from 'hono';
import { startLinkPaymentSchema } from '../../schemas/links.ts';
import { checkoutSchema, errorSchema } from '../../schemas/proxy-api.ts';
import { jsonRequest } from '../http/json-request.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, BROWSER_ERRORS, RATE_LIMITED, STORE_DOWN } from '../http/openapi/problems.ts';
import { NotFoundError } from '../domain/domain-errors.ts';
import { auditedForKey } from '../operator/dual-control.ts';
import { merchantAuth, type MerchantCaller } from '../payments/merchant-auth.ts';
import { publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import { linkCheckoutExample, linkExample } from './link-examples.ts';
import { linkManagementOperations, mountLinkManagement } from './link-manage-routes.ts';
import { LINK_PAGE_CSP, linkPage, linkPageLanguage } from './link-page.ts';
import { linkView } from './link-views.ts';

const callerOf = (c: Context) => (c as Context<{ Variables: { merchant: MerchantCaller } }>).var.merchant;

/**
 * The merchant's server manages its links with a merchant key that has `links:manage` (every change
 * audited under the key's id); a customer on a link's page starts paying it, which makes an ordinary
 * checkout that the page then pays like any other.
 */
export function linkRoutes(services: ProxyServices): Hono {
  const { config, links, merchantKeys, checkouts, tokens, operators } = services;
  const app = new Hono();
  const manage = merchantAuth({ keys: merchantKeys, scope: 'links:manage' });
  mountLinkManagement(app, services, links, {
    base: '/api/links',
    guard: () => manage,
    creator: (c) => ({ kind: 'merchant-key', id: callerOf(c).keyId }),
    audit: (c, action, details) => auditedForKey(c, operators, callerOf(c).keyId, action, details),
  });

  const browser = browserOrigins({ origins: config.allowedOrigins, methods: ['POST'], headers: ['Content-Type'] });
  const creates = clientRateLimit({ name: 'creates', limit: config.createRateLimit, trustProxy: config.trustProxy });
  app.options('/api/links/:code/checkout', browser);
  app.post('/api/links/:code/checkout', browser, creates, async (c) => {
    const { amount } = await jsonRequest(c, startLinkPaymentSchema);
    const { checkout } = await links.startPaying(c.req.param('code'), amount);
    return c.json(await checkouts.view(checkout, await tokens.environment()), 201);
  });

  const reads = clientRateLimit({ name: 'reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  app.get('/l/:code', reads, async (c) => {
    const link = await links.get(c.req.param('code')).catch((error: unknown) => {
      // A browser gets a page saying so; anything else the proxy's usual error body.
      if (error instanceof NotFoundError && c.req.header('Accept')?.includes('text/html')) return undefined;
      throw error;
    });
    const view = link && linkView(link, publicOrigin(config.publicUrl, c.req.url));
    c.header('Content-Security-Policy', LINK_PAGE_CSP);
    c.header('Vary', 'Accept-Language');
    c.header('Cache-Control', 'no-store');
    return c.html(linkPage(view, linkPageLanguage(view, c.req.header('Accept-Language'))), view ? 200 : 404);
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
      'The link’s page, in its language or the browser’s (en, de, fr, es, nl): its title, description and amount, with Open Graph tags (title and amount) for a link shared in a chat; or why it takes no payment (paused, ended, expired, used up, total reached), in words.',
    audience: 'browser',
    access: { auth: 'public', because: 'whoever has a link may open it: its code is the capability.' },
    params: { code: { description: 'The link’s code, from its URL', example: linkExample.code } },
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
};

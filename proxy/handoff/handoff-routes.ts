import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { isStatusToken } from '../../lib/status-token.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import { errorSchema, handoffSchema, type Handoff } from '../../schemas/proxy-api.ts';
import { HandoffCodes } from './handoff-codes.ts';
import { HANDOFF_PAGE_CSP, handoffPage, pageLanguage, type HandoffOutcome } from './handoff-page.ts';
import { ConflictError, GoneError, NotFoundError } from '../domain/domain-errors.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import { createdPaymentExample, handoffExample } from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BROWSER_ERRORS, RATE_LIMITED, STORE_DOWN } from '../http/openapi/problems.ts';
import { returnPath, shopReturnUrl } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import type { Payment } from '../state/store.ts';
import { PRIVATE_READ } from '../http/cache-control.ts';

/** A bank flow left open this long is abandoned: its hand-off link no longer leads to the bank. */
export const HANDOFF_TTL_MS = 30 * 60_000;

const FAILURES: Record<string, HandoffOutcome> = { CANCELLED: 'cancelled', REJECTED: 'rejected' };

/**
 * Set by `/p/<code>` on the phone, for that payment's return address only: back from the bank, this
 * browser is shown how the payment ended instead of the shop's page (which is on the computer).
 */
const PHONE_COOKIE = 'kassa_phone';

/** What a phone back from the bank is told: how the payment ended, or that it is being confirmed. */
export function returnOutcome(payment: Pick<Payment, 'status' | 'networkStatus'>): HandoffOutcome {
  if (payment.status === 'COMPLETED') return 'completed';
  if (isTerminalStatus(payment.status)) return FAILURES[payment.networkStatus ?? ''] ?? 'failed';
  return 'pending';
}

/** Where a hand-off link leads now: to the bank while the payment is open and young, else a page saying why not. */
export function handoffOutcome(
  payment: Pick<Payment, 'status' | 'networkStatus' | 'createdAt'> | undefined,
  now: number,
): HandoffOutcome | 'bank' {
  if (!payment) return 'invalid';
  if (isTerminalStatus(payment.status)) return returnOutcome(payment);
  return payment.createdAt + HANDOFF_TTL_MS <= now ? 'expired' : 'bank';
}

/**
 * "Pay with your phone": the element asks for a hand-off code for its payment and shows
 * `<proxy>/p/<code>` as a QR code; the phone opening it is sent to the payment's bank page while
 * the payment is open, and is shown a page in its language otherwise (done, failed and why, expired,
 * not valid), never the bank. Back from the bank at the payment's return address (`/r/<statusToken>`),
 * that phone is shown the same page, while every other browser goes on to the shop's page.
 */
export function handoffRoutes({ config, store, refresher, links }: ProxyServices): Hono {
  const app = new Hono();
  const codes = new HandoffCodes(config.webhookSecret);
  const browser = browserOrigins({ origins: config.allowedOrigins, methods: ['GET'], headers: [] });
  const reads = clientRateLimit({ name: 'reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  const expiresAt = (payment: Payment) => payment.createdAt + HANDOFF_TTL_MS;

  app.options('/api/payments/status/:statusToken/handoff', browser);
  app.get('/api/payments/status/:statusToken/handoff', browser, reads, async (c) => {
    const token = c.req.param('statusToken');
    const payment = isStatusToken(token) ? await store.paymentByToken(token) : undefined;
    if (!payment) throw new NotFoundError('Unknown payment status link');
    if (isTerminalStatus(payment.status)) throw new ConflictError('This payment is already final');
    if (expiresAt(payment) <= Date.now()) throw new GoneError('This payment is too old to hand off');
    c.header('Cache-Control', PRIVATE_READ);
    const body: Handoff = {
      code: codes.issue(payment.transactionId),
      expiresAt: new Date(expiresAt(payment)).toISOString(),
    };
    return c.json(body);
  });

  app.get('/p/:code', reads, async (c) => {
    const code = c.req.param('code');
    const transactionId = codes.read(code);
    const payment = transactionId === undefined ? undefined : await store.paymentById(transactionId);
    c.header('Cache-Control', 'no-store');
    const outcome = handoffOutcome(payment, Date.now());
    if (outcome !== 'bank') return page(c, outcome, outcome === 'invalid' ? 404 : outcome === 'expired' ? 410 : 200);
    // The phone is on its way to the bank: a good moment to read the payment again if it is due.
    void refresher.refreshIfDue(payment!, 'watch');
    setCookie(c, PHONE_COOKIE, code, {
      path: returnPath(payment!.statusToken),
      httpOnly: true,
      sameSite: 'Lax',
      secure: new URL(c.req.url).protocol === 'https:' || !!config.publicUrl?.startsWith('https:'),
      maxAge: HANDOFF_TTL_MS / 1000,
    });
    return c.redirect(payment!.flowUrl, 303);
  });

  /**
   * Where a computer goes on to: for a link's payment, the link's return URL, or the link's own page
   * with the receipt when it has none; else the shop's page the payment was started for.
   */
  const onward = async (payment: Payment): Promise<string> => {
    const { checkoutId, statusToken } = payment;
    const link = checkoutId === null ? undefined : await links.afterBank(checkoutId, statusToken);
    if (link && 'page' in link) return link.page;
    return shopReturnUrl(link ? link.shop : payment.returnUrl, config.returnUrls, statusToken);
  };

  // The payment's return address, where the bank sends the customer back: on to the shop's page, as
  // the payment was started with, unless this browser is the phone a computer handed the payment to.
  app.get('/r/:statusToken', reads, async (c) => {
    const token = c.req.param('statusToken');
    const payment = isStatusToken(token) ? await store.paymentByToken(token) : undefined;
    c.header('Cache-Control', 'no-store');
    // Nothing to show for a payment this proxy does not know: the shop's page, afresh.
    if (!payment) return c.redirect(config.returnUrls[0]!, 303);
    const code = getCookie(c, PHONE_COOKIE);
    if (code === undefined || codes.read(code) !== payment.transactionId) return c.redirect(await onward(payment), 303);
    const outcome = returnOutcome(payment);
    // The phone waits for the payment service's word: ask it now if it is due (webhooks usually come first).
    if (outcome === 'pending') void refresher.refreshIfDue(payment, 'watch');
    return page(c, outcome, 200);
  });

  return app;
}

function page(c: Context, outcome: HandoffOutcome, status: 200 | 404 | 410) {
  // A phone's browser gets the page; anything else that is refused gets the proxy's usual error body.
  if (status !== 200 && !c.req.header('Accept')?.includes('text/html'))
    return c.json(
      { error: outcome === 'invalid' ? 'Unknown hand-off link' : 'This hand-off link has expired' },
      status,
    );
  c.header('Content-Security-Policy', HANDOFF_PAGE_CSP);
  c.header('Vary', 'Accept-Language');
  return c.html(handoffPage(outcome, pageLanguage(c.req.header('Accept-Language'))), status);
}

const PAGE = 'A page in the phone’s language saying how the payment ended, or that it is being confirmed';
const phonePage = (description: string) => ({
  description,
  json: { schema: errorSchema, example: { error: description } },
  text: { contentType: 'text/html', description: `${PAGE} (for a browser that accepts text/html)` },
});
const REDIRECT = { Location: { description: 'Where the browser goes next', required: true } };

export const handoffOperations: ApiOperations = {
  'GET /api/payments/status/{statusToken}/handoff': {
    operationId: 'getPaymentHandoff',
    summary: 'Hand a payment to a phone',
    description:
      '“Pay with your phone”: the code of the payment’s hand-off link, `<proxy>/p/<code>`, to show as a QR code. A phone opening it goes to the payment’s bank while the payment is open.',
    audience: 'browser',
    access: { auth: 'public', because: 'the unguessable statusToken in the path is the capability to this payment.' },
    params: {
      statusToken: {
        description: 'The payment’s statusToken, from createPayment',
        example: createdPaymentExample.statusToken,
      },
    },
    responses: {
      200: {
        description: 'The code, and until when it leads to the bank',
        json: { schema: handoffSchema, example: handoffExample },
      },
    },
    errors: {
      ...BROWSER_ERRORS,
      404: 'Unknown payment status link',
      409: 'This payment is already final',
      410: 'This payment is too old to hand off',
    },
  },
  'GET /p/{code}': {
    operationId: 'openHandoffLink',
    summary: 'Open a hand-off link (the phone)',
    description:
      'Sends the phone to the payment’s bank while the payment is open and young, and shows a page otherwise (done, failed and why, expired, not valid), never the bank.',
    audience: 'browser',
    access: {
      auth: 'public',
      because: 'the signed code in the path is the capability, and it only ever leads to the bank.',
    },
    params: { code: { description: 'The hand-off code, from getPaymentHandoff', example: handoffExample.code } },
    responses: {
      200: { description: PAGE, text: { contentType: 'text/html' } },
      303: { description: 'To the payment’s page at the bank', headers: REDIRECT },
      404: phonePage('Unknown hand-off link'),
      410: phonePage('This hand-off link has expired'),
    },
    errors: { 429: RATE_LIMITED, 503: STORE_DOWN },
  },
  'GET /r/{statusToken}': {
    operationId: 'returnFromBank',
    summary: 'Come back from the bank',
    description:
      'The payment’s return address, where the bank sends the customer: on to the shop’s page (with `kassa_status`), or for a payment link with no return URL to the link’s page with the receipt; or, for the phone the payment was handed to, a page saying how it ended.',
    audience: 'browser',
    access: { auth: 'public', because: 'the bank sends the customer’s browser here, with nothing but the path.' },
    params: {
      statusToken: { description: 'The payment’s statusToken', example: createdPaymentExample.statusToken },
    },
    responses: {
      200: { description: PAGE, text: { contentType: 'text/html' } },
      303: { description: 'To the shop’s return page, or a payment link’s receipt page', headers: REDIRECT },
    },
    errors: { 429: RATE_LIMITED, 503: STORE_DOWN },
  },
};

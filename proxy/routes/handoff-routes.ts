import { Hono, type Context } from 'hono';
import { isStatusToken } from '../../lib/status-token.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import { HandoffCodes } from '../handoff/handoff-codes.ts';
import { HANDOFF_PAGE_CSP, handoffPage, pageLanguage, type HandoffOutcome } from '../handoff/handoff-page.ts';
import { HttpProblem } from '../http-problem.ts';
import { browserOrigins } from '../middleware/browser-origins.ts';
import { clientRateLimit } from '../middleware/client-rate-limit.ts';
import type { ProxyServices } from '../services.ts';
import type { Payment } from '../store/store.ts';

/** A bank flow left open this long is abandoned: its hand-off link no longer leads to the bank. */
export const HANDOFF_TTL_MS = 30 * 60_000;

const FAILURES: Record<string, HandoffOutcome> = { CANCELLED: 'cancelled', REJECTED: 'rejected' };

/**
 * "Pay with your phone": the element asks for a hand-off code for its payment and shows
 * `<proxy>/p/<code>` as a QR code; the phone opening it is sent to the payment's bank page while
 * the payment is open, and is shown a page in its language otherwise (done, failed and why, expired,
 * not valid), never the bank.
 */
export function handoffRoutes({ config, store, refresher }: ProxyServices): Hono {
  const app = new Hono();
  const codes = new HandoffCodes(config.webhookSecret);
  const browser = browserOrigins({ origins: config.allowedOrigins, methods: ['GET'], headers: [] });
  const reads = clientRateLimit({ name: 'reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  const expiresAt = (payment: Payment) => payment.createdAt + HANDOFF_TTL_MS;

  app.options('/api/payments/status/:statusToken/handoff', browser);
  app.get('/api/payments/status/:statusToken/handoff', browser, reads, async (c) => {
    const token = c.req.param('statusToken');
    const payment = isStatusToken(token) ? await store.paymentByToken(token) : undefined;
    if (!payment) throw new HttpProblem(404, 'Unknown payment status link');
    if (isTerminalStatus(payment.status)) throw new HttpProblem(409, 'This payment is already final');
    if (expiresAt(payment) <= Date.now()) throw new HttpProblem(410, 'This payment is too old to hand off');
    c.header('Cache-Control', 'no-store');
    return c.json({ code: codes.issue(payment.transactionId), expiresAt: new Date(expiresAt(payment)).toISOString() });
  });

  app.get('/p/:code', reads, async (c) => {
    const transactionId = codes.read(c.req.param('code'));
    const payment = transactionId === undefined ? undefined : await store.paymentById(transactionId);
    c.header('Cache-Control', 'no-store');
    if (!payment) return page(c, 'invalid', 404);
    if (payment.status === 'COMPLETED') return page(c, 'completed', 200);
    if (isTerminalStatus(payment.status)) return page(c, FAILURES[payment.networkStatus ?? ''] ?? 'failed', 200);
    if (expiresAt(payment) <= Date.now()) return page(c, 'expired', 410);
    // The phone is on its way to the bank: a good moment to read the payment again if it is due.
    void refresher.refreshIfDue(payment, 'watch');
    return c.redirect(payment.flowUrl, 303);
  });

  return app;
}

function page(c: Context, outcome: HandoffOutcome, status: 200 | 404 | 410) {
  c.header('Content-Security-Policy', HANDOFF_PAGE_CSP);
  c.header('Vary', 'Accept-Language');
  return c.html(handoffPage(outcome, pageLanguage(c.req.header('Accept-Language'))), status);
}

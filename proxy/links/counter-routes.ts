/**
 * Counter mode's routes (docs/links.md): the counter page (`/operator/counter`, signed in with
 * `counter:take`) asks for a customer's payment, follows it live and cancels it. Each is a single-use
 * link, so its payment is an ordinary one everywhere else.
 */
import { Hono, type Context } from 'hono';
import { counterPaymentSchema, FINAL_COUNTER_STATES, newCounterPaymentSchema } from '../../schemas/counter.ts';
import type { CounterPaymentView } from '../../schemas/counter.ts';
import { stateStream } from '../http/sse.ts';
import { jsonRequest } from '../http/json-request.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { audited } from '../operator/dual-control.ts';
import { operatorGuards, operatorStream, type OperatorEnv } from '../operator/operator-auth.ts';
import { MisconfiguredError } from '../domain/domain-errors.ts';
import { publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import type { LinkRecord } from '../state/links.ts';
import { Counter, type CounterProgress } from './counter.ts';
import { linkExample } from './link-examples.ts';
import { linkView } from './link-views.ts';

/** A counter's stream reads its payment again this often besides being told of changes: only a fallback. */
const RECHECK_MS = 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** A counter payment as the counter shows it. */
export function counterView(
  link: LinkRecord,
  progress: CounterProgress,
  origin: string | undefined,
): CounterPaymentView {
  const { url, qr } = linkView(link, origin);
  return {
    code: link.code,
    url,
    qr,
    amount: link.amount!,
    currencyCode: link.currencyCode,
    note: link.title,
    reference: link.reference,
    state: progress.state,
    transactionId: progress.transactionId,
    expiresAt: iso(link.expiresAt!),
    createdBy: link.createdBy.id,
  };
}

const viewKey = (view: CounterPaymentView) => `${view.state}.${view.transactionId ?? ''}`;

export function counterRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, links, checkouts, operators, coordination, logger } = services;
  const counter = new Counter({ links, checkouts, terms: config.counterAmount });
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(counterOperations, operators.access);
  const origin = (c: Context) => publicOrigin(config.publicUrl, c.req.url);
  const target = (code: string) => ({ type: 'link', id: code });
  const current = async (c: Context, code: string) => {
    const link = await counter.get(code);
    return counterView(link, await counter.progress(link), origin(c));
  };

  app.post(
    '/api/operator/counter',
    guard('POST /api/operator/counter'),
    refusePrivateKeys({ freeText: ['note'] }),
    async (c) => {
      const asked = await jsonRequest(c, newCounterPaymentSchema);
      // Refused before anything is made: a counter payment the customer cannot scan is none.
      if (origin(c) === undefined)
        throw new MisconfiguredError(
          'Set KASSA_PUBLIC_URL: the counter’s QR code holds the link’s address on this proxy',
        );
      const link = await counter.ask(asked, c.var.operator.operatorId);
      const view = counterView(link, { state: 'waiting', transactionId: null }, origin(c));
      await audited(c, operators, 'counter.requested', {
        target: target(link.code),
        after: { amount: view.amount, currencyCode: view.currencyCode, note: view.note, reference: view.reference },
      });
      return c.json(view, 201);
    },
  );

  app.get('/api/operator/counter/:code', guard('GET /api/operator/counter/{code}'), async (c) =>
    c.json(await current(c, c.req.param('code'))),
  );

  app.get('/api/operator/counter/:code/events', guard('GET /api/operator/counter/{code}/events'), async (c) => {
    const code = (await counter.get(c.req.param('code'))).code;
    /** The checkouts made for it, whose payments' changes on the status bus are its own. */
    let known = new Set<string>();
    const read = async () => {
      known = new Set(await counter.checkoutsOf(code));
      return current(c, code);
    };
    return stateStream<CounterPaymentView>(c, {
      event: 'counter',
      listen: (send) => {
        // One read at a time, and one more after it when told of a change meanwhile: views go out in order.
        let reading: Promise<void> | undefined;
        let again = false;
        const look = (): void => {
          if (reading) {
            again = true;
            return;
          }
          reading = read()
            .then(send, (error: unknown) => logger.warn('a counter payment could not be read', { code, error }))
            .finally(() => {
              reading = undefined;
              if (again) {
                again = false;
                look();
              }
            });
        };
        const stops = [
          coordination.linkChanges.subscribe(code, look),
          coordination.bus.subscribeAll((view) => {
            if (view.checkoutId !== null && known.has(view.checkoutId)) look();
          }),
          coordination.bus.onResync(look),
        ];
        const recheck = setInterval(look, RECHECK_MS);
        recheck.unref();
        return () => {
          clearInterval(recheck);
          for (const stop of stops) stop();
        };
      },
      current: read,
      key: viewKey,
      final: (view) => FINAL_COUNTER_STATES.includes(view.state),
      ...operatorStream(c, services),
    });
  });

  app.post('/api/operator/counter/:code/cancel', guard('POST /api/operator/counter/{code}/cancel'), async (c) => {
    const cancelled = await counter.cancel(c.req.param('code'));
    await audited(c, operators, 'counter.cancelled', {
      target: target(cancelled.code),
      after: { state: cancelled.state },
    });
    return c.json(counterView(cancelled, await counter.progress(cancelled), origin(c)));
  });

  return app;
}

const TAKE = { auth: 'operator', permission: 'counter:take' } as const;
const CODE = {
  code: { description: 'The counter payment’s code, from createCounterPayment', example: linkExample.code },
};
const REFUSED = { ...OPERATOR_ERRORS, 403: 'The role lacks counter:take' };

export const counterPaymentExample: CounterPaymentView = {
  code: linkExample.code,
  url: linkExample.url,
  qr: linkExample.qr,
  amount: '12.50',
  currencyCode: 'EUR',
  note: 'Table 4',
  reference: 'CTR-7K2M9QXA',
  state: 'waiting',
  transactionId: null,
  expiresAt: '2026-11-23T18:15:00.000Z',
  createdBy: 'op_3xQe9XbYt2gkW1cN0aZr5H',
};
const ONE = { schema: counterPaymentSchema, example: counterPaymentExample };
const NOT_FOUND = 'Unknown counter payment (or the code of a link to share)';

export const counterOperations: ApiOperations = {
  'POST /api/operator/counter': {
    operationId: 'createCounterPayment',
    summary: 'Ask a customer at the till to pay',
    description:
      'Counter mode: a single-use link of `amount` (within KASSA_COUNTER, in its currency) with `note` as its title, marked as a counter payment (`kind: counter` in listOperatorLinks), made by the calling operator (in the audit trail) and expiring after 15 minutes. The customer scans its QR code (`qr`) and pays on their phone: an ordinary checkout and payment, in the search, the reconciliation and the events (`link.paid`, `checkout.paid`).',
    audience: 'operator',
    access: TAKE,
    request: { schema: newCounterPaymentSchema, example: { amount: '12.50', note: 'Table 4' } },
    responses: { 201: { description: 'Asked: the counter shows its QR code', json: ONE } },
    errors: {
      ...REFUSED,
      400: `${BAD_BODY}; or an amount outside KASSA_COUNTER (details.reason amount-out-of-bounds, with min, max and currencyCode)`,
      403: 'The role lacks counter:take; or counter mode is off (KASSA_COUNTER)',
      500: 'KASSA_PUBLIC_URL is not set (and the request is not on loopback): the QR code could not hold the link’s address',
    },
  },
  'GET /api/operator/counter/{code}': {
    operationId: 'getCounterPayment',
    summary: 'Read a counter payment',
    description:
      'Where it is: waiting (for the customer to scan it), opened (on their phone), authorising (at their bank), paid, failed (they may try again on their phone), cancelled or expired. For a counter that cannot keep a stream open (followCounterPayment is the way).',
    audience: 'operator',
    access: TAKE,
    params: CODE,
    responses: { 200: { description: 'The counter payment', json: ONE } },
    errors: { ...REFUSED, 404: NOT_FOUND },
  },
  'GET /api/operator/counter/{code}/events': {
    operationId: 'followCounterPayment',
    summary: 'Follow a counter payment live',
    description:
      'Server-Sent Events: a `counter` event, whose data is the CounterPayment, at once and at each change of its state (pushed as the customer opens it and as its payment changes, on any instance of the proxy), ending after paid, cancelled or expired. As the operators’ other streams, it checks its credential twice a second, and ends with `event: unauthorized` once it stops working.',
    audience: 'operator',
    access: TAKE,
    params: CODE,
    responses: {
      200: {
        description: 'The stream',
        text: {
          contentType: 'text/event-stream',
          description:
            '`event: counter`, `data:` a CounterPayment as JSON; last, perhaps, `event: unauthorized`, `data: {error}`',
        },
      },
    },
    errors: { ...REFUSED, 404: NOT_FOUND },
  },
  'POST /api/operator/counter/{code}/cancel': {
    operationId: 'cancelCounterPayment',
    summary: 'Cancel a counter payment',
    description:
      'Ends its link: nobody can start paying it any more (audited). A customer who opened it before may still pay the checkout they hold until the counter payment’s expiry. One paid, or at the customer’s bank, cannot be cancelled.',
    audience: 'operator',
    access: TAKE,
    params: CODE,
    responses: {
      200: {
        description: 'Cancelled',
        json: { schema: counterPaymentSchema, example: { ...counterPaymentExample, state: 'cancelled' } },
      },
    },
    errors: { ...REFUSED, 404: NOT_FOUND, 409: 'It is paid, at the customer’s bank, or ended already' },
  },
};

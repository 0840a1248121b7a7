import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import {
  resolvedPaymentSchema,
  resolvePaymentRequestSchema,
  unverifiableListSchema,
  type UnverifiablePayment,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import { audited } from '../operator/dual-control.ts';
import {
  operatorPaymentExample,
  resolvedExample,
  resolveExample,
  unverifiableListExample,
} from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { operatorViews } from './status-view.ts';
import type { ProxyServices } from '../services.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What the operator settles by hand: payments the payment service can no longer be asked about (a
 * revoked key's, say), with the last webhook Kassa did receive, and the resolution of a payment
 * against the bank statement, kept as an audit record and announced like any other change.
 */
export function reconciliationRoutes({ store, refresher, logger, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(reconciliationOperations, operators.access);
  const viewOf = async (transactionId: string) => {
    const payment = await store.paymentById(transactionId);
    return payment && (await operatorViews(store, [payment]))[0];
  };

  app.get('/api/payments/unverifiable', guard('GET /api/payments/unverifiable'), async (c) => {
    const entries = await store.reconciliation.unverifiable(200);
    const payments: UnverifiablePayment[] = [];
    for (const entry of entries) {
      const payment = await viewOf(entry.transactionId);
      if (!payment || isTerminalStatus(payment.status)) continue;
      const hook = await store.reconciliation.lastWebhook(entry.transactionId);
      payments.push({
        payment,
        reason: entry.reason,
        since: iso(entry.since),
        lastWebhook: hook
          ? { receivedAt: iso(hook.receivedAt), event: JSON.parse(hook.body) as Record<string, unknown> }
          : null,
      });
    }
    return c.json({ payments });
  });

  app.post(
    '/api/payments/resolutions/:transactionId',
    guard('POST /api/payments/resolutions/{transactionId}'),
    refusePrivateKeys(),
    async (c) => {
      const transactionId = c.req.param('transactionId');
      const parsed = await parseJsonBody(c, resolvePaymentRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const payment = await store.paymentById(transactionId);
      if (!payment) throw new NotFoundError('Unknown payment');
      if (isTerminalStatus(payment.status))
        throw new ConflictError(`This payment is already ${payment.status}: a final status never changes`);
      const now = Date.now();
      const at = iso(now);
      const { status, note } = parsed.data;
      const changed = await refresher.apply(
        transactionId,
        {
          status,
          networkStatus: payment.networkStatus,
          networkPaymentId: payment.networkPaymentId,
          paymentRail: payment.paymentRail,
          providerId: payment.providerId,
          endToEndId: payment.endToEndId,
          updatedAt: at,
          completedAt: status === 'COMPLETED' ? at : null,
        },
        now,
        'resolved',
      );
      if (!changed) throw new ConflictError('This payment changed meanwhile; look at it again');
      await store.reconciliation.recordResolution({
        transactionId,
        previousStatus: payment.status,
        status,
        note,
        resolvedAt: now,
      });
      await store.reconciliation.clearUnverifiable(transactionId);
      await store.reconciliation.dequeueReread(transactionId);
      logger.warn('payment resolved by the operator', { transactionId, previousStatus: payment.status, status });
      await audited(c, operators, 'payment.resolved', {
        target: { type: 'payment', id: transactionId },
        before: { status: payment.status },
        after: { status, note },
      });
      const resolutions = await store.reconciliation.resolutions(transactionId);
      return c.json({
        payment: await viewOf(transactionId),
        resolutions: resolutions.map(({ transactionId: _, resolvedAt, ...rest }) => ({
          ...rest,
          resolvedAt: iso(resolvedAt),
        })),
      });
    },
  );
  return app;
}

export const reconciliationOperations: ApiOperations = {
  'GET /api/payments/unverifiable': {
    operationId: 'listUnverifiablePayments',
    summary: 'Payments to settle by hand',
    description:
      'Payments that are not final and that the payment service can no longer be asked about (a revoked key’s, say), each with the last webhook Kassa received for it: what the service last said. At most 200.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:read' },
    responses: {
      200: { description: 'The payments', json: { schema: unverifiableListSchema, example: unverifiableListExample } },
    },
    errors: OPERATOR_ERRORS,
  },
  'POST /api/payments/resolutions/{transactionId}': {
    operationId: 'resolvePayment',
    summary: 'Settle a payment by hand',
    description:
      'Sets a payment that is not final to COMPLETED or FAILED against the bank statement: kept as an audit record with the note, and announced like any other change (streams, events).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:resolve' },
    params: {
      transactionId: { description: 'The payment’s transactionId', example: operatorPaymentExample.transactionId },
    },
    request: { schema: resolvePaymentRequestSchema, example: resolveExample },
    responses: {
      200: {
        description: 'The payment now, and every resolution of it',
        json: { schema: resolvedPaymentSchema, example: resolvedExample },
      },
    },
    errors: {
      ...OPERATOR_ERRORS,
      400: BAD_BODY,
      404: 'Unknown payment',
      409: 'This payment is already final (a final status never changes), or it changed meanwhile',
    },
  },
};

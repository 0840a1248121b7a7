import { Hono, type Context } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  operatorPurchaseSchema,
  purchaseDetailSchema,
  purchaseListQuerySchema,
  purchaseListSchema,
  refundPurchaseRequestSchema,
} from '../../schemas/onramp.ts';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import { audited, requestOrAct } from '../operator/dual-control.ts';
import { purchaseSummary } from './purchase-approvals.ts';
import { purchaseApprovalExample } from '../operator/approval-examples.ts';
import { approvalSchema } from '../../schemas/operators.ts';
import { auditView, operatorPurchaseView } from './purchase-views.ts';
import {
  delayedPurchaseExample,
  operatorPurchaseExample,
  purchaseDetailExample,
  purchaseListExample,
  refundExample,
} from './onramp-examples.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS, UPSTREAM_FOR_CLIENTS } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidPurchaseCursorError, type PurchaseRecord } from '../state/purchases.ts';

const PURCHASE_ID = /^pur_[A-Za-z0-9]{20}$/;

/**
 * The on-ramp's purchases for the merchant's operators (the extension's Purchases view): every
 * purchase with its payment, mint order and chain transaction, and the two actions on a delayed one,
 * each recorded with the request that made it. Mounted only when the on-ramp is on.
 */
export function purchaseRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { onramp, operators } = services;
  if (!onramp) throw new Error('the purchase routes are mounted only when the on-ramp is on');
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(purchaseOperations, operators.access);

  const byId = async (c: Context): Promise<PurchaseRecord> => {
    const id = c.req.param('purchaseId') ?? '';
    const purchase = PURCHASE_ID.test(id) ? await services.store.purchases.byId(id) : undefined;
    if (!purchase) throw new NotFoundError('No purchase has this id');
    return purchase;
  };
  // Asking a second person to act on a purchase that cannot be acted on would only waste their time.
  const delayed = (purchase: PurchaseRecord) => {
    if (purchase.state !== 'delayed')
      throw new ConflictError(`Only a delayed purchase can be acted on; this one is ${purchase.state}`);
    return purchase;
  };
  const operatorView = async (purchase: PurchaseRecord) =>
    operatorPurchaseView(
      purchase,
      await onramp.service.paymentStatus(purchase),
      await onramp.service.explorer(purchase),
    );

  app.get('/api/onramp/purchases', guard('GET /api/onramp/purchases'), async (c) => {
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

  app.get('/api/onramp/purchases/:purchaseId', guard('GET /api/onramp/purchases/{purchaseId}'), async (c) => {
    const purchase = await byId(c);
    const audit = await services.store.purchases.audit(purchase.purchaseId);
    return c.json({ ...(await operatorView(purchase)), audit: audit.map(auditView) });
  });

  app.post(
    '/api/onramp/purchases/:purchaseId/retry-mint',
    guard('POST /api/onramp/purchases/{purchaseId}/retry-mint'),
    async (c) => {
      const purchase = delayed(await byId(c));
      const { purchaseId } = purchase;
      const ask = {
        kind: 'purchase.retry-mint',
        target: purchaseId,
        payload: {},
        summary: purchaseSummary(purchase),
      } as const;
      return requestOrAct(c, operators, { ...ask, permission: 'purchases:act', amount: purchase.tokens }, async () => {
        const retried = await onramp.operations.retryMint(purchaseId, c.get('requestId'));
        await audited(c, operators, 'purchase.retry-mint', {
          target: { type: 'purchase', id: purchaseId },
          before: { state: purchase.state },
          after: { state: retried.state },
        });
        return c.json(await operatorView(retried));
      });
    },
  );

  app.post(
    '/api/onramp/purchases/:purchaseId/refund',
    guard('POST /api/onramp/purchases/{purchaseId}/refund'),
    refusePrivateKeys({ freeText: ['note'] }),
    async (c) => {
      const purchase = await byId(c);
      const { purchaseId } = purchase;
      const parsed = await parseJsonBody(c, refundPurchaseRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const { note } = parsed.data;
      delayed(purchase);
      const ask = {
        kind: 'purchase.refund',
        target: purchaseId,
        payload: { note },
        summary: purchaseSummary(purchase),
      } as const;
      const amount = purchase.paymentAmount;
      return requestOrAct(c, operators, { ...ask, permission: 'purchases:act', amount }, async () => {
        const refunded = await onramp.operations.refund(purchaseId, note, c.get('requestId'));
        await audited(c, operators, 'purchase.refund', {
          target: { type: 'purchase', id: purchaseId },
          before: { state: purchase.state },
          after: { state: refunded.state, note },
        });
        return c.json(await operatorView(refunded));
      });
    },
  );

  return app;
}

const PURCHASE_ID_PARAM = {
  purchaseId: { description: 'The purchase’s id (`pur_…`)', example: operatorPurchaseExample.purchaseId },
};
const ACTION_ERRORS = {
  ...OPERATOR_ERRORS,
  404: 'No purchase has this id',
  409: 'The purchase is not delayed; or the issuer is still processing its order, or completed it without a mint on the chain (a second order could mint twice); or another action on it is under way (Retry-After)',
  502: UPSTREAM_FOR_CLIENTS[502],
};

export const purchaseOperations: ApiOperations = {
  'GET /api/onramp/purchases': {
    operationId: 'listPurchases',
    summary: 'On-ramp purchases',
    description: 'Every purchase, newest first: its payment, its mint order and the mint on the chain.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'purchases:read' },
    query: queryOf(purchaseListQuerySchema.shape, {
      state: 'Only purchases in this state',
      wallet: 'Only this wallet’s purchases',
      limit: 'At most this many (1 to 200, 50 by default)',
      cursor: 'The nextCursor of the previous page',
    }),
    responses: {
      200: { description: 'A page of purchases', json: { schema: purchaseListSchema, example: purchaseListExample } },
    },
    errors: { ...OPERATOR_ERRORS, 400: 'A filter or the cursor is not valid' },
  },
  'GET /api/onramp/purchases/{purchaseId}': {
    operationId: 'getPurchase',
    summary: 'One on-ramp purchase, with its audit',
    description: 'The purchase, and every action an operator took on it.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'purchases:read' },
    params: PURCHASE_ID_PARAM,
    responses: {
      200: { description: 'The purchase', json: { schema: purchaseDetailSchema, example: purchaseDetailExample } },
    },
    errors: { ...OPERATOR_ERRORS, 404: 'No purchase has this id' },
  },
  'POST /api/onramp/purchases/{purchaseId}/retry-mint': {
    operationId: 'retryPurchaseMint',
    summary: 'Retry a delayed purchase’s mint',
    description:
      'Never a second mint: a mint already on the chain delivers the purchase instead; a New order is cancelled first; then a new order is made under the next attempt’s name. Recorded in the audit. Dual control: a pending request (202) for a second person with purchases:act, unless the purchase’s tokens are below KASSA_APPROVAL_THRESHOLD (200 at once).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'purchases:act' },
    params: PURCHASE_ID_PARAM,
    responses: {
      200: {
        description:
          'Done at once (below the approval threshold): paid again (a new order is on its way), or delivered',
        json: { schema: operatorPurchaseSchema, example: operatorPurchaseExample },
      },
      202: {
        description: 'A request waiting for a second person’s approval (dual control)',
        json: { schema: approvalSchema, example: purchaseApprovalExample },
      },
    },
    errors: ACTION_ERRORS,
  },
  'POST /api/onramp/purchases/{purchaseId}/refund': {
    operationId: 'refundPurchase',
    summary: 'Mark a delayed purchase refunded',
    description:
      'Records that the money went back to the customer at the bank (the refund itself happens there), with a note. Refused when the tokens are on the chain. Recorded in the audit. Dual control: a pending request (202) for a second person with purchases:act, unless the payment is below KASSA_APPROVAL_THRESHOLD (200 at once).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'purchases:act' },
    params: PURCHASE_ID_PARAM,
    request: { schema: refundPurchaseRequestSchema, example: refundExample },
    responses: {
      200: {
        description: 'Refunded at once (below the approval threshold)',
        json: { schema: operatorPurchaseSchema, example: { ...delayedPurchaseExample, state: 'refunded' } },
      },
      202: {
        description: 'A request waiting for a second person’s approval (dual control)',
        json: {
          schema: approvalSchema,
          example: { ...purchaseApprovalExample, kind: 'purchase.refund', payload: { note: 'Returned by SEPA' } },
        },
      },
    },
    errors: { ...ACTION_ERRORS, 400: `${BAD_BODY}; a note is required` },
  },
};

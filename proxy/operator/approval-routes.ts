import { Hono, type Context } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  approvalListQuerySchema,
  approvalListSchema,
  approvalSchema,
  cancelApprovalRequestSchema,
  rejectApprovalRequestSchema,
  type ApprovalView,
} from '../../schemas/operators.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { NotFoundError } from '../domain/domain-errors.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidApprovalCursorError } from '../state/approvals.ts';
import { approvalView, auditContextOf } from './dual-control.ts';
import { approvalExample } from './approval-examples.ts';
import { operatorGuards, type OperatorEnv } from './operator-auth.ts';

const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{22}$/;

/**
 * Dual control's requests: the list (with what the caller may decide), one request, and the second
 * person's approval or rejection, or the requester's cancellation. Approving runs the action once.
 */
export function approvalRoutes({ config, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(approvalOperations, operators.access);
  const { approvals } = operators;
  const idOf = (c: Context<OperatorEnv>) => {
    const id = c.req.param('approvalId') ?? '';
    if (!APPROVAL_ID.test(id)) throw new NotFoundError('No approval request has this id');
    return id;
  };

  app.get('/api/approvals', guard('GET /api/approvals'), async (c) => {
    const query = approvalListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    try {
      const page = await approvals.list(query.data);
      return c.json({
        approvals: page.approvals.map((approval) => approvalView(approval, c.var.operator)),
        nextCursor: page.nextCursor,
      });
    } catch (error) {
      if (error instanceof InvalidApprovalCursorError) throw new HttpProblem(400, error.message);
      throw error;
    }
  });

  app.get('/api/approvals/:approvalId', guard('GET /api/approvals/{approvalId}'), async (c) => {
    const approval = await approvals.get(idOf(c));
    return c.json(approvalView(approval, c.var.operator));
  });

  app.post(
    '/api/approvals/:approvalId/approve',
    guard('POST /api/approvals/{approvalId}/approve'),
    refusePrivateKeys(),
    async (c) => {
      const id = idOf(c);
      const approval = await approvals.approve(id, c.var.operator, auditContextOf(c, config.trustProxy));
      return c.json(approvalView(approval, c.var.operator));
    },
  );

  app.post(
    '/api/approvals/:approvalId/reject',
    guard('POST /api/approvals/{approvalId}/reject'),
    refusePrivateKeys({ freeText: ['reason'] }),
    async (c) => {
      const id = idOf(c);
      const parsed = await parseJsonBody(c, rejectApprovalRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const approval = await approvals.reject(
        id,
        c.var.operator,
        parsed.data.reason,
        auditContextOf(c, config.trustProxy),
      );
      return c.json(approvalView(approval, c.var.operator));
    },
  );

  app.post(
    '/api/approvals/:approvalId/cancel',
    guard('POST /api/approvals/{approvalId}/cancel'),
    refusePrivateKeys({ freeText: ['reason'] }),
    async (c) => {
      const id = idOf(c);
      const parsed = await parseJsonBody(c, cancelApprovalRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const approval = await approvals.cancel(
        id,
        c.var.operator,
        parsed.data.reason ?? null,
        auditContextOf(c, config.trustProxy),
      );
      return c.json(approvalView(approval, c.var.operator));
    },
  );

  return app;
}

const APPROVAL_ID_PARAM = {
  approvalId: {
    description: 'The request’s id (`apr_…`), from the 202 of the money route',
    example: approvalExample.approvalId,
  },
};
const MONEY = ['orders:write', 'purchases:act'] as const;

const executed: ApprovalView = {
  ...approvalExample,
  state: 'executed',
  decidedBy: { operatorId: 'op_b7Lw2QxR9sKd0mYt3VnE1g', name: 'Grace Hopper', role: 'admin' },
  decidedAt: '2026-03-02T09:20:41.000Z',
  result: { orderId: 'ord_7Yx2kQ9m' },
  canDecide: false,
};

const DECISION_ERRORS = {
  403: 'You asked for this yourself (a second person must approve), or your role lacks the request’s permission (named in `permission`)',
  404: 'No approval request has this id',
  409: 'The request is decided already (approved, rejected, cancelled), or someone decided it a moment ago',
  410: 'The request expired before anyone decided it: ask again',
  503: STORE_DOWN,
};

export const approvalOperations: ApiOperations = {
  'GET /api/approvals': {
    operationId: 'listApprovals',
    summary: 'Money actions waiting for a second person, and decided ones',
    description:
      'Every approval request, newest first; `state=pending` for those still open. `canDecide` says which the caller may approve or reject.',
    audience: 'operator',
    access: { auth: 'operator', permission: ['orders:read', 'purchases:read'] },
    query: queryOf(approvalListQuerySchema.shape, {
      state: 'Only requests in this state',
      limit: 'At most this many (1 to 200, 50 by default)',
      cursor: 'The nextCursor of the previous page',
    }),
    responses: {
      200: {
        description: 'A page of requests',
        json: { schema: approvalListSchema, example: { approvals: [approvalExample], nextCursor: null } },
      },
    },
    errors: { 400: 'A filter or the cursor is not valid', 503: STORE_DOWN },
  },
  'GET /api/approvals/{approvalId}': {
    operationId: 'getApproval',
    summary: 'One approval request',
    description: 'The request, what it asks, who asked, and, once decided, who decided and what it made.',
    audience: 'operator',
    access: { auth: 'operator', permission: ['orders:read', 'purchases:read'] },
    params: APPROVAL_ID_PARAM,
    responses: { 200: { description: 'The request', json: { schema: approvalSchema, example: approvalExample } } },
    errors: { 404: 'No approval request has this id', 503: STORE_DOWN },
  },
  'POST /api/approvals/{approvalId}/approve': {
    operationId: 'approveApproval',
    summary: 'Approve a request: its action runs, once',
    description:
      'A second person whose role has the request’s permission approves it; the action then runs exactly once (whoever else approves at the same moment gets 409), and the request says `executed` with what it made, or `failed` with the error in words. Only now does anything reach the order service.',
    audience: 'operator',
    access: { auth: 'operator', permission: MONEY },
    params: APPROVAL_ID_PARAM,
    responses: {
      200: {
        description: 'Approved and run: executed, or failed',
        json: { schema: approvalSchema, example: executed },
      },
    },
    errors: { ...DECISION_ERRORS, 400: BAD_BODY },
  },
  'POST /api/approvals/{approvalId}/reject': {
    operationId: 'rejectApproval',
    summary: 'Reject a request',
    description: 'A second person whose role has the request’s permission rejects it, saying why; nothing runs.',
    audience: 'operator',
    access: { auth: 'operator', permission: MONEY },
    params: APPROVAL_ID_PARAM,
    request: { schema: rejectApprovalRequestSchema, example: { reason: 'The customer paid for 25, not 250' } },
    responses: {
      200: {
        description: 'Rejected',
        json: {
          schema: approvalSchema,
          example: {
            ...executed,
            state: 'rejected',
            reason: 'The customer paid for 25, not 250',
            result: null,
          },
        },
      },
    },
    errors: { ...DECISION_ERRORS, 400: `${BAD_BODY}; a reason is required` },
  },
  'POST /api/approvals/{approvalId}/cancel': {
    operationId: 'cancelApproval',
    summary: 'Withdraw one’s own request',
    description: 'The person who asked withdraws the request; nothing runs.',
    audience: 'operator',
    access: { auth: 'operator', permission: MONEY },
    params: APPROVAL_ID_PARAM,
    request: { schema: cancelApprovalRequestSchema, example: { reason: 'Wrong wallet' } },
    responses: {
      200: {
        description: 'Cancelled',
        json: {
          schema: approvalSchema,
          example: {
            ...approvalExample,
            state: 'cancelled',
            reason: 'Wrong wallet',
            decidedBy: approvalExample.requestedBy,
            decidedAt: '2026-03-02T09:15:00.000Z',
            canDecide: false,
          },
        },
      },
    },
    errors: {
      ...DECISION_ERRORS,
      403: 'Only the person who asked can cancel a request (others reject it); or the role lacks the permission',
      400: BAD_BODY,
    },
  },
};

import { Hono } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  auditExportQuerySchema,
  auditListSchema,
  auditQuerySchema,
  type AuditRecordView,
} from '../../schemas/audit.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { STORE_DOWN } from '../http/openapi/problems.ts';
import { csvLine } from '../../lib/csv.ts';
import type { ProxyServices } from '../services.ts';
import { audited } from './dual-control.ts';
import { operatorGuards, type OperatorEnv } from './operator-auth.ts';
import { auditRecordView } from './operator-views.ts';

const EXPORT_BATCH = 500;
const CSV_COLUMNS = [
  'seq',
  'at',
  'actor',
  'role',
  'via',
  'action',
  'target',
  'requestId',
  'ip',
  'before',
  'after',
  'hash',
];

const csvOf = (record: AuditRecordView) =>
  csvLine([
    String(record.seq),
    record.at,
    record.actor.operatorId ? `${record.actor.name} (${record.actor.operatorId})` : record.actor.name,
    record.actor.role ?? '',
    record.actor.via,
    record.action,
    record.target ? `${record.target.type}:${record.target.id}` : '',
    record.requestId ?? '',
    record.ip ?? '',
    JSON.stringify(record.before ?? null),
    JSON.stringify(record.after ?? null),
    record.hash,
  ]);

/** The audit trail for admins: newest first with filters, and the whole of it as NDJSON or CSV. */
export function auditRoutes({ store, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(auditOperations, operators.access);

  app.get('/api/audit', guard('GET /api/audit'), async (c) => {
    const query = auditQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    const { from, to, cursor, ...rest } = query.data;
    const records = await store.audit.list({
      ...rest,
      from: from === undefined ? undefined : Date.parse(from),
      to: to === undefined ? undefined : Date.parse(to),
      beforeSeq: cursor === undefined ? undefined : Number(cursor),
      limit: rest.limit + 1,
    });
    const page = records.slice(0, rest.limit);
    return c.json({
      records: page.map(auditRecordView),
      nextCursor: records.length > rest.limit ? String(page[page.length - 1]!.seq) : null,
    });
  });

  app.get('/api/audit/export', guard('GET /api/audit/export'), async (c) => {
    const query = auditExportQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    const { format } = query.data;
    const from = query.data.from === undefined ? -Infinity : Date.parse(query.data.from);
    const to = query.data.to === undefined ? Infinity : Date.parse(query.data.to);
    const head = await store.audit.head();
    await audited(c, operators, 'audit.exported', { after: { format, from: query.data.from, to: query.data.to } });
    const encoder = new TextEncoder();
    const last = head?.seq ?? 0;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          if (format === 'csv') controller.enqueue(encoder.encode(csvLine(CSV_COLUMNS)));
          // Oldest first, as far as the head when the export began: what a verifier walks.
          for (let seq = 1; seq <= last; seq += EXPORT_BATCH) {
            const views = (await store.audit.range(seq, Math.min(EXPORT_BATCH, last - seq + 1)))
              .filter((record) => record.at >= from && record.at < to)
              .map(auditRecordView);
            const text = views.map((view) => (format === 'csv' ? csvOf(view) : `${JSON.stringify(view)}\n`)).join('');
            if (text) controller.enqueue(encoder.encode(text));
          }
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
    const stamp = new Date().toISOString().replaceAll(':', '-').slice(0, 19);
    return c.body(body, 200, {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson',
      'Content-Disposition': `attachment; filename="kassa-audit-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`,
      'Cache-Control': 'no-store',
    });
  });

  return app;
}

const recordExample: AuditRecordView = {
  seq: 42,
  at: '2026-03-02T09:20:41.000Z',
  actor: { operatorId: 'op_b7Lw2QxR9sKd0mYt3VnE1g', name: 'Grace Hopper', role: 'admin', via: 'web' },
  action: 'approval.approved',
  target: { type: 'approval', id: 'apr_Vq3xK9mB2nL7cR1sT0wYzA' },
  requestId: '6f1c1f54-8a9e-4a53-9d1e-2f1b3c4d5e6f',
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/138.0',
  before: { state: 'pending' },
  after: { state: 'approved', kind: 'order.create', summary: { amount: '250', coin: 'eUSD' } },
  prevHash: '9a0c5d8f3e1b7a2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c',
  hash: '3c7e1a9b5d2f8c4e6a0b1d3f5a7c9e2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f2a4c',
};

export const auditOperations: ApiOperations = {
  'GET /api/audit': {
    operationId: 'listAudit',
    summary: 'The audit trail',
    description:
      'Who did what, newest first: sign-ins, changes, approvals, rejections, exports and role changes, with the person, role, time, request, address and the state before and after. Each record carries the hash of the one before (`kassa-proxy audit verify` walks the chain).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'audit:read' },
    query: queryOf(auditQuerySchema.shape, {
      operatorId: 'Only what this operator did',
      action: 'Only this action, or every action under a prefix (`approval`)',
      targetId: 'Only records about this order, purchase, operator, approval …',
      from: 'At or after (ISO 8601)',
      to: 'Before (ISO 8601)',
      limit: 'At most this many (1 to 500, 100 by default)',
      cursor: 'The nextCursor of the previous page',
    }),
    responses: {
      200: {
        description: 'A page of records',
        json: { schema: auditListSchema, example: { records: [recordExample], nextCursor: '41' } },
      },
    },
    errors: { 400: 'A filter, the limit or the cursor is malformed (the message names it)', 503: STORE_DOWN },
  },
  'GET /api/audit/export': {
    operationId: 'exportAudit',
    summary: 'The audit trail as a file',
    description:
      'Every record, oldest first, as NDJSON (one record a line, hashes included) or CSV. The export is audited itself.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'audit:read' },
    query: queryOf(auditExportQuerySchema.shape, {
      format: 'ndjson (the default) or csv',
      from: 'At or after (ISO 8601)',
      to: 'Before (ISO 8601)',
    }),
    responses: {
      200: {
        description: 'The records',
        text: [
          { contentType: 'application/x-ndjson', description: 'One AuditRecord as JSON a line (`format=ndjson`)' },
          { contentType: 'text/csv', description: 'A header line, then a record a line (`format=csv`)' },
        ],
      },
    },
    errors: { 400: 'The format or a time is malformed', 503: STORE_DOWN },
  },
};

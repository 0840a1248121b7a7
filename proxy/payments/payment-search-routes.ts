import { Hono, type Context } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import { paymentListQuerySchema, paymentListSchema } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import { audited } from '../operator/dual-control.ts';
import { operatorPaymentExample, paymentListExample } from '../http/openapi/examples.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { CSV_COLUMNS, csvLine, csvRow } from './payments-csv.ts';
import { operatorViews } from './status-view.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidCursorError, type PaymentSearch } from '../state/store.ts';

/** Rows read from the store per page of an export. */
const EXPORT_PAGE = 500;

/**
 * The operator's search of payments (status, checkout, reference, time range, amount range; newest
 * first, paged) and the same search as a CSV file streamed page by page, for reconciliation against
 * the bank statement.
 */
export function paymentSearchRoutes({ store, logger, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(paymentSearchOperations, operators.access);
  const searchOf = (c: Context): PaymentSearch => {
    const query = paymentListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    const { from, to, ...rest } = query.data;
    return {
      ...rest,
      from: from === undefined ? undefined : Date.parse(from),
      to: to === undefined ? undefined : Date.parse(to),
    };
  };
  const page = async (search: PaymentSearch) => {
    try {
      return await store.listPayments(search);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw new HttpProblem(400, error.message);
      throw error;
    }
  };

  app.get('/api/payments', guard('GET /api/payments'), async (c) => {
    const found = await page(searchOf(c));
    return c.json({ payments: await operatorViews(store, found.payments), nextCursor: found.nextCursor });
  });

  app.get('/api/payments/export', guard('GET /api/payments/export'), async (c) => {
    const search = { ...searchOf(c), limit: EXPORT_PAGE };
    // The first page is read before the answer starts, so a bad cursor is still a clean 400.
    const first = await page(search);
    const { limit: _, cursor, ...filters } = search;
    await audited(c, operators, 'payments.exported', { after: { ...filters, cursor: cursor ?? null } });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          controller.enqueue(encoder.encode(csvLine(CSV_COLUMNS)));
          let current = first;
          for (;;) {
            const rows = await operatorViews(store, current.payments);
            controller.enqueue(encoder.encode(rows.map(csvRow).join('')));
            if (!current.nextCursor) break;
            current = await page({ ...search, cursor: current.nextCursor });
          }
          controller.close();
        } catch (error) {
          logger.error('payment export failed part way', { error });
          controller.error(error);
        }
      },
    });
    const stamp = new Date().toISOString().replaceAll(':', '-').slice(0, 19);
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8; header=present',
      'Content-Disposition': `attachment; filename="kassa-payments-${stamp}.csv"`,
      'Cache-Control': 'no-store',
    });
  });
  return app;
}

const { limit, cursor, ...filters } = paymentListQuerySchema.shape;
const FILTERS = queryOf(filters, {
  status: 'An upper-case status: PENDING, COMPLETED, FAILED',
  checkoutId: 'The checkout a payment was made for',
  reference: 'The payment reference, exactly',
  from: 'Created at or after (ISO 8601)',
  to: 'Created before (ISO 8601)',
  minAmount: 'At least this amount (decimal)',
  maxAmount: 'At most this amount (decimal)',
});
const SEARCH_ERRORS = { ...OPERATOR_ERRORS, 400: 'A filter, limit or cursor is malformed (the message names it)' };

export const paymentSearchOperations: ApiOperations = {
  'GET /api/payments': {
    operationId: 'searchPayments',
    summary: 'Search payments',
    description: 'Payments matching every filter given, newest first, a page at a time.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:read' },
    query: {
      ...FILTERS,
      ...queryOf(
        { limit, cursor },
        { limit: 'Payments per page, 1 to 200', cursor: 'nextCursor of the previous page' },
      ),
    },
    responses: { 200: { description: 'A page', json: { schema: paymentListSchema, example: paymentListExample } } },
    errors: SEARCH_ERRORS,
  },
  'GET /api/payments/export': {
    operationId: 'exportPayments',
    summary: 'Export payments as CSV',
    description:
      'The same search as searchPayments, every page, as one CSV file (RFC 4180, with a header row naming the columns) streamed for reconciliation against the bank statement.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:export' },
    query: { ...FILTERS, ...queryOf({ cursor }, { cursor: 'Start after this nextCursor of searchPayments' }) },
    responses: {
      200: {
        description: 'The CSV file',
        text: {
          contentType: 'text/csv',
          example: `${csvLine(CSV_COLUMNS)}${csvRow(operatorPaymentExample)}`,
        },
        headers: { 'Content-Disposition': { description: '`attachment; filename="kassa-payments-<time>.csv"`' } },
      },
    },
    errors: SEARCH_ERRORS,
  },
};

import { z } from 'zod';
import {
  bulkRedeliverRequestSchema,
  EVENT_SCHEMAS,
  eventDetailSchema,
  eventListSchema,
  eventSummarySchema,
  redeliverResultSchema,
} from '../schemas/events.ts';
import {
  createOrderRequestSchema,
  createOrderResponseSchema,
  deleteOrderResponseSchema,
  orderListSchema,
  orderSchema,
  updateOrderRequestSchema,
  updateOrderResponseSchema,
} from '../schemas/orders.ts';
import {
  bridgeChainsSchema,
  bridgePrepareRequestSchema,
  bridgePrepareResponseSchema,
  checkoutSchema,
  createCheckoutRequestSchema,
  createPaymentRequestSchema,
  createPaymentResponseSchema,
  errorSchema,
  healthSchema,
  merchantCheckoutSchema,
  resolvePaymentRequestSchema,
  resolvedPaymentSchema,
  unverifiableListSchema,
  paymentListSchema,
  handoffSchema,
  paymentStatusSchema,
  publicConfigSchema,
} from '../schemas/proxy-api.ts';

type Auth = 'merchant' | 'operator' | 'browser' | 'webhook';

interface Operation {
  summary: string;
  auth: Auth;
  request?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  query?: Record<string, string>;
  stream?: boolean;
}

type JsonSchema = Record<string, unknown>;

/**
 * A schema for the document: named schemas (`.meta({ id })`) go to `components.schemas` once and are
 * referenced from there, as OpenAPI readers expect, instead of zod's per-schema `$defs`.
 */
function component(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const {
    $schema: _,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const retarget = (value: JsonSchema): JsonSchema =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  for (const [name, definition] of Object.entries($defs ?? {})) components[name] ??= retarget(definition);
  return retarget(rest);
}

const PAYMENT_SEARCH = {
  status: 'PENDING, COMPLETED, FAILED',
  checkoutId: 'The checkout a payment was made for',
  reference: 'The payment reference, exactly',
  from: 'Created at or after (ISO 8601)',
  to: 'Created before (ISO 8601)',
  minAmount: 'At least this amount (decimal)',
  maxAmount: 'At most this amount (decimal)',
};

const OPERATIONS: Record<string, Record<string, Operation>> = {
  '/api/checkouts': {
    post: {
      summary: 'Create a checkout (the merchant server decides the amount)',
      auth: 'merchant',
      request: createCheckoutRequestSchema,
      response: merchantCheckoutSchema,
      status: 201,
    },
  },
  '/api/checkouts/{checkoutId}': {
    get: {
      summary: 'Read a checkout (with the merchant key: the merchant’s view, MerchantCheckout)',
      auth: 'browser',
      response: checkoutSchema,
    },
  },
  '/api/events': {
    get: {
      summary: 'The merchant’s events, newest first, with their delivery status',
      auth: 'operator',
      response: eventListSchema,
      query: {
        status: 'pending, delivered or failed',
        type: 'An event type, such as checkout.paid',
        limit: '1 to 200 (50)',
        cursor: 'nextCursor of the previous page',
      },
    },
  },
  '/api/events/{eventId}': {
    get: {
      summary: 'One event, its payload and every delivery attempt',
      auth: 'operator',
      response: eventDetailSchema,
    },
  },
  '/api/events/{eventId}/redeliver': {
    post: { summary: 'Send an event again now', auth: 'operator', response: eventSummarySchema, status: 202 },
  },
  '/api/events/redeliver': {
    post: {
      summary: 'Send every failed event created since a moment again',
      auth: 'operator',
      request: bulkRedeliverRequestSchema,
      response: redeliverResultSchema,
    },
  },
  '/api/config': {
    get: { summary: 'What the widget needs to know about this proxy', auth: 'browser', response: publicConfigSchema },
  },
  '/api/payments': {
    post: {
      summary: 'Start a payment (header Idempotency-Key required)',
      auth: 'browser',
      request: createPaymentRequestSchema,
      response: createPaymentResponseSchema,
      status: 201,
    },
    get: {
      summary: 'Search payments, newest first',
      auth: 'operator',
      response: paymentListSchema,
      query: { ...PAYMENT_SEARCH, limit: '1 to 200 (50)', cursor: 'nextCursor of the previous page' },
    },
  },
  '/api/payments/unverifiable': {
    get: {
      summary: 'Payments the payment service can no longer be asked about, to settle by hand',
      auth: 'operator',
      response: unverifiableListSchema,
    },
  },
  '/api/payments/{transactionId}/resolve': {
    post: {
      summary: 'Settle a payment that is not final against the bank statement (audited, announced)',
      auth: 'operator',
      request: resolvePaymentRequestSchema,
      response: resolvedPaymentSchema,
    },
  },
  '/api/payments/export': {
    get: {
      summary: 'The same search as CSV (RFC 4180, every field of OperatorPayment), streamed',
      auth: 'operator',
      query: PAYMENT_SEARCH,
    },
  },
  '/api/payments/events': {
    get: {
      summary: 'Server-Sent Events: every payment status change',
      auth: 'operator',
      response: paymentStatusSchema,
      stream: true,
    },
  },
  '/api/payments/status/{statusToken}': {
    get: { summary: "The customer's view of their payment", auth: 'browser', response: paymentStatusSchema },
  },
  '/api/payments/status/{statusToken}/events': {
    get: {
      summary: 'Server-Sent Events (`status`): the current status, then each change; closes after a final one',
      auth: 'browser',
      response: paymentStatusSchema,
      stream: true,
    },
  },
  '/api/payments/status/{statusToken}/handoff': {
    get: {
      summary:
        'The hand-off code of an open payment ("pay with your phone": a phone opening /p/{code} goes to its bank)',
      auth: 'browser',
      response: handoffSchema,
    },
  },
  '/api/orders': {
    get: {
      summary: 'List stablecoin orders',
      auth: 'operator',
      response: orderListSchema,
      query: { filterStatus: 'New, Processing, Completed, Failed, Cancelled' },
    },
    post: {
      summary: 'Create a stablecoin order',
      auth: 'operator',
      request: createOrderRequestSchema,
      response: createOrderResponseSchema,
      status: 201,
    },
  },
  '/api/orders/{orderId}': {
    get: { summary: 'Read an order', auth: 'operator', response: orderSchema },
    put: {
      summary: 'Update amount and/or status',
      auth: 'operator',
      request: updateOrderRequestSchema,
      response: updateOrderResponseSchema,
    },
    delete: { summary: 'Delete an order', auth: 'operator', response: deleteOrderResponseSchema },
  },
  '/api/chains': {
    get: {
      summary: 'Chains and tokens (for operators)',
      auth: 'operator',
      response: bridgeChainsSchema,
      query: { network: 'main or test (test)' },
    },
  },
  '/api/health': { get: { summary: 'Upstream, store and budget health', auth: 'operator', response: healthSchema } },
  '/api/bridge/chains': {
    get: {
      summary: 'Chains and tokens for the wallet panel',
      auth: 'browser',
      response: bridgeChainsSchema,
      query: { network: 'main or test (test)' },
    },
  },
  '/api/bridge/prepare': {
    post: {
      summary: 'Prepare the unsigned burn transaction of a cross-chain transfer',
      auth: 'browser',
      request: bridgePrepareRequestSchema,
      response: bridgePrepareResponseSchema,
    },
  },
  '/hooks/payments/{webhookSecret}': {
    post: {
      summary: 'Where the payment service sends payment.status_updated (a hint: the payment is re-read)',
      auth: 'webhook',
    },
  },
};

const SECURITY: Record<Auth, unknown[]> = {
  merchant: [{ merchantKey: [] }],
  operator: [{ operatorToken: [] }],
  browser: [],
  webhook: [],
};

/** The proxy's OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {};
  const json = (schema: z.ZodType, io: 'input' | 'output') => component(schema, io, schemas);
  for (const [path, methods] of Object.entries(OPERATIONS)) {
    paths[path] = {};
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = [
        ...[...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
          name,
          in: 'path',
          required: true,
          schema: { type: 'string' },
        })),
        ...Object.entries(operation.query ?? {}).map(([name, description]) => ({
          name,
          in: 'query',
          required: false,
          description,
          schema: { type: 'string' },
        })),
        ...(operation.summary.includes('Idempotency-Key')
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: true,
                schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{8,255}$' },
              },
            ]
          : []),
      ];
      const success = operation.response
        ? {
            description: 'OK',
            content: {
              [operation.stream ? 'text/event-stream' : 'application/json']: {
                schema: json(operation.response, 'output'),
              },
            },
          }
        : { description: 'OK' };
      paths[path][method] = {
        summary: operation.summary,
        security: SECURITY[operation.auth],
        parameters,
        ...(operation.request
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: json(operation.request, 'input') } },
              },
            }
          : {}),
        responses: {
          [String(operation.status ?? 200)]: success,
          default: {
            description: 'An error: `{ "error": "<what is wrong>" }`',
            content: { 'application/json': { schema: json(errorSchema, 'output') } },
          },
        },
      };
    }
  }
  // What the proxy posts to the merchant's KASSA_EVENTS_URL, signed (Standard Webhooks).
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [
      type,
      {
        post: {
          summary: schema.description ?? type,
          parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
            name,
            in: 'header',
            required: true,
            schema: { type: 'string' },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: json(schema, 'output') } } },
          responses: { '2XX': { description: 'Received; any other answer is retried on schedule' } },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kassa proxy',
      version,
      description: 'The server a merchant self-hosts: the only holder of upstream secrets.',
    },
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: {
        merchantKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'KASSA_MERCHANT_KEY, from the merchant server only',
        },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'KASSA_OPERATOR_TOKEN' },
      },
    },
  };
}

import { Hono } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  bulkRedeliverRequestSchema,
  eventDetailSchema,
  eventListQuerySchema,
  eventListSchema,
  eventSummarySchema,
  kassaEventSchema,
  redeliverResultSchema,
  type EventDetail,
  type EventSummary,
} from '../../schemas/events.ts';
import { eventEndpointSchema } from '../../schemas/event-endpoint.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import { audited } from '../operator/dual-control.ts';
import {
  eventDetailExample,
  eventEndpointExample,
  eventListExample,
  eventSummaryExample,
} from '../http/openapi/examples.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidEventCursorError, type EventAttemptRecord, type StoredEvent } from '../state/outbox.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

const summary = (event: StoredEvent): EventSummary => ({
  id: event.eventId,
  type: event.type,
  status: event.status,
  sequence: event.sequence,
  transactionId: event.transactionId,
  checkoutId: event.checkoutId,
  createdAt: new Date(event.createdAt).toISOString(),
  attempts: event.attempts,
  nextAttemptAt: event.status === 'pending' ? iso(event.nextAttemptAt) : null,
  deliveredAt: iso(event.deliveredAt),
  lastError: event.lastError,
});

const detail = (event: StoredEvent, attempts: EventAttemptRecord[]): EventDetail => ({
  ...summary(event),
  payload: kassaEventSchema.parse(JSON.parse(event.payload)),
  attemptLog: attempts.map((attempt) => ({ ...attempt, at: new Date(attempt.at).toISOString() })),
});

/**
 * The operator's view of the merchant's events: the outbox, each event's attempts, and redelivery of
 * one event or of every failed one since a moment (after the merchant's endpoint was fixed).
 */
export function eventRoutes({ config, store, events: deliverer, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(eventOperations, operators.access);
  const eventId = (id: string) => {
    if (!EVENT_ID.test(id)) throw new NotFoundError('Unknown event');
    return id;
  };

  app.get('/api/events', guard('GET /api/events'), async (c) => {
    const query = eventListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    try {
      const page = await store.outbox.listEvents(query.data);
      return c.json({
        events: page.events.map(summary),
        nextCursor: page.nextCursor,
        endpoint: config.events?.url ?? null,
        endpoints: (await deliverer?.endpoints()) ?? [],
      });
    } catch (error) {
      if (error instanceof InvalidEventCursorError) throw new HttpProblem(400, error.message);
      throw error;
    }
  });

  app.get('/api/events/:eventId', guard('GET /api/events/{eventId}'), async (c) => {
    const found = await store.outbox.getEvent(eventId(c.req.param('eventId')));
    if (!found) throw new NotFoundError('Unknown event');
    return c.json(detail(found.event, found.attempts));
  });

  app.post('/api/events/redeliver', guard('POST /api/events/redeliver'), refusePrivateKeys(), async (c) => {
    if (!config.events) throw new ConflictError(NOT_SENT);
    const parsed = await parseJsonBody(c, bulkRedeliverRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const redelivered = await store.outbox.redeliverFailed(Date.parse(parsed.data.since), Date.now());
    deliverer?.wake();
    await audited(c, operators, 'events.redelivered', { after: { since: parsed.data.since, redelivered } });
    return c.json({ redelivered });
  });

  app.post(
    '/api/events/endpoints/:endpointId/enable',
    guard('POST /api/events/endpoints/{endpointId}/enable'),
    refusePrivateKeys(),
    async (c) => {
      if (!deliverer) throw new ConflictError(NOT_SENT);
      const endpoint = await deliverer.enable(c.req.param('endpointId'));
      if (!endpoint) throw new NotFoundError('Unknown endpoint');
      await audited(c, operators, 'event_endpoint.enabled', {
        target: { type: 'event_endpoint', id: endpoint.id },
        after: endpoint,
      });
      return c.json(endpoint);
    },
  );

  app.post(
    '/api/events/:eventId/redeliver',
    guard('POST /api/events/{eventId}/redeliver'),
    refusePrivateKeys(),
    async (c) => {
      if (!config.events) throw new ConflictError(NOT_SENT);
      const event = await store.outbox.redeliver(eventId(c.req.param('eventId')), Date.now());
      if (!event) throw new NotFoundError('Unknown event');
      deliverer?.wake();
      await audited(c, operators, 'event.redelivered', { target: { type: 'event', id: event.eventId } });
      return c.json(summary(event), 202);
    },
  );
  return app;
}

const NOT_SENT = 'Events are not sent: set KASSA_EVENTS_URL and KASSA_EVENTS_SECRET';
const EVENT = { eventId: { description: 'The event’s id (its webhook-id)', example: eventSummaryExample.id } };
const { status, type, limit, cursor } = eventListQuerySchema.shape;

export const eventOperations: ApiOperations = {
  'GET /api/events': {
    operationId: 'listEvents',
    summary: 'List the merchant’s events',
    description:
      'The events sent (or to be sent) to the merchant’s server, newest first, with their delivery status, a page at a time.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'events:read' },
    query: queryOf(
      { status, type, limit, cursor },
      {
        status: 'pending, delivered or failed',
        type: 'An event type, such as checkout.paid',
        limit: 'Events per page, 1 to 200',
        cursor: 'nextCursor of the previous page',
      },
    ),
    responses: { 200: { description: 'A page', json: { schema: eventListSchema, example: eventListExample } } },
    errors: { ...OPERATOR_ERRORS, 400: 'A filter, limit or cursor is malformed (the message names it)' },
  },
  'GET /api/events/{eventId}': {
    operationId: 'getEvent',
    summary: 'Read an event',
    description: 'One event, its payload and every delivery attempt (time, duration, the status code or the error).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'events:read' },
    params: EVENT,
    responses: { 200: { description: 'The event', json: { schema: eventDetailSchema, example: eventDetailExample } } },
    errors: { ...OPERATOR_ERRORS, 404: 'Unknown event' },
  },
  'POST /api/events/redeliver': {
    operationId: 'redeliverFailedEvents',
    summary: 'Send every failed event again',
    description:
      'Every failed event created since a moment is pending again and due now: after the merchant’s endpoint was fixed.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'events:redeliver' },
    request: {
      schema: bulkRedeliverRequestSchema,
      example: { status: 'failed', since: '2026-11-20T00:00:00Z' },
    },
    responses: {
      200: {
        description: 'How many events are pending again',
        json: { schema: redeliverResultSchema, example: { redelivered: 3 } },
      },
    },
    errors: { ...OPERATOR_ERRORS, 400: BAD_BODY, 409: NOT_SENT },
  },
  'POST /api/events/endpoints/{endpointId}/enable': {
    operationId: 'enableEventEndpoint',
    summary: 'Send events to an endpoint again',
    description:
      'An endpoint that answered 410 Gone again and again is disabled: its events wait, pending, and it stays so across restarts. Once the merchant’s server wants events again, this enables it; the events that waited go out now (those its 410s failed can be redelivered).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'events:redeliver' },
    params: { endpointId: { description: 'The endpoint’s id, from listEvents', example: eventEndpointExample.id } },
    responses: {
      200: { description: 'Enabled', json: { schema: eventEndpointSchema, example: eventEndpointExample } },
    },
    errors: {
      ...OPERATOR_ERRORS,
      400: 'The body carries a private key (this route needs no body)',
      404: 'Unknown endpoint',
      409: NOT_SENT,
    },
  },
  'POST /api/events/{eventId}/redeliver': {
    operationId: 'redeliverEvent',
    summary: 'Send an event again now',
    description: 'The event is pending again and due now, delivered ones too (a receiver that lost one).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'events:redeliver' },
    params: EVENT,
    responses: {
      202: {
        description: 'Pending again',
        json: { schema: eventSummarySchema, example: { ...eventSummaryExample, status: 'pending' } },
      },
    },
    errors: {
      ...OPERATOR_ERRORS,
      400: 'The body carries a private key (this route needs no body)',
      404: 'Unknown event',
      409: NOT_SENT,
    },
  },
};

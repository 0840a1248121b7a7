import { Hono } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  bulkRedeliverRequestSchema,
  eventListQuerySchema,
  kassaEventSchema,
  type EventDetail,
  type EventSummary,
} from '../../schemas/events.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { HttpProblem } from '../http-problem.ts';
import { requireBearer } from '../middleware/require-bearer.ts';
import type { ProxyServices } from '../services.ts';
import { InvalidEventCursorError, type EventAttemptRecord, type StoredEvent } from '../store/outbox.ts';

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
export function eventRoutes({ config, store, events: deliverer }: ProxyServices): Hono {
  const app = new Hono();
  const operator = requireBearer({ token: config.operatorToken, realm: 'KASSA_OPERATOR_TOKEN' });
  const eventId = (id: string) => {
    if (!EVENT_ID.test(id)) throw new HttpProblem(404, 'Unknown event');
    return id;
  };

  app.get('/api/events', operator, async (c) => {
    const query = eventListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    try {
      const page = await store.outbox.listEvents(query.data);
      return c.json({
        events: page.events.map(summary),
        nextCursor: page.nextCursor,
        endpoint: config.events?.url ?? null,
      });
    } catch (error) {
      if (error instanceof InvalidEventCursorError) throw new HttpProblem(400, error.message);
      throw error;
    }
  });

  app.get('/api/events/:eventId', operator, async (c) => {
    const found = await store.outbox.getEvent(eventId(c.req.param('eventId')));
    if (!found) throw new HttpProblem(404, 'Unknown event');
    return c.json(detail(found.event, found.attempts));
  });

  app.post('/api/events/redeliver', operator, async (c) => {
    if (!config.events) throw new HttpProblem(409, 'Events are not sent: set KASSA_EVENTS_URL and KASSA_EVENTS_SECRET');
    const parsed = await parseJsonBody(c, bulkRedeliverRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const redelivered = await store.outbox.redeliverFailed(Date.parse(parsed.data.since), Date.now());
    deliverer?.wake();
    return c.json({ redelivered });
  });

  app.post('/api/events/:eventId/redeliver', operator, async (c) => {
    if (!config.events) throw new HttpProblem(409, 'Events are not sent: set KASSA_EVENTS_URL and KASSA_EVENTS_SECRET');
    const event = await store.outbox.redeliver(eventId(c.req.param('eventId')), Date.now());
    if (!event) throw new HttpProblem(404, 'Unknown event');
    deliverer?.wake();
    return c.json(summary(event), 202);
  });
  return app;
}

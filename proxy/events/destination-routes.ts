import { Hono } from 'hono';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  deliveryLogQuerySchema,
  deliveryLogSchema,
  destinationChangeSchema,
  destinationListSchema,
  destinationSchema,
  destinationWithSecretSchema,
  newDestinationSchema,
  rotateSecretSchema,
  skipResultSchema,
  testDeliverySchema,
  type DeliveryView,
} from '../../schemas/event-destinations.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { jsonRequest } from '../http/json-request.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { queryOf, type ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { audited } from '../operator/dual-control.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import type { ProxyServices } from '../services.ts';
import type { DeliveryRecord } from '../state/destinations.ts';
import { InvalidEventCursorError } from '../state/outbox.ts';
import {
  deliveryExample,
  destinationExample,
  DESTINATION_ID_EXAMPLE,
  newDestinationExample,
  SECRET_EXAMPLE,
} from './destination-examples.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const deliveryView = (delivery: DeliveryRecord): DeliveryView => ({
  ...delivery,
  createdAt: new Date(delivery.createdAt).toISOString(),
  nextAttemptAt: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null,
  deliveredAt: iso(delivery.deliveredAt),
  lastAttemptAt: iso(delivery.lastAttemptAt),
});

/** Where the merchant's events go (docs/events.md#destinations): admins manage them, viewers read them. */
export function destinationRoutes({ destinations, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(destinationOperations, operators.access);
  const target = (id: string) => ({ type: 'event_destination', id });

  app.get('/api/event-destinations', guard('GET /api/event-destinations'), async (c) =>
    c.json({ destinations: await destinations.list() }),
  );

  app.post('/api/event-destinations', guard('POST /api/event-destinations'), refusePrivateKeys(), async (c) => {
    const created = await destinations.create(await jsonRequest(c, newDestinationSchema));
    await audited(c, operators, 'event_destination.created', {
      target: target(created.destination.id),
      after: created.destination,
    });
    return c.json(created, 201);
  });

  app.get('/api/event-destinations/:destinationId', guard('GET /api/event-destinations/{destinationId}'), async (c) =>
    c.json(await destinations.get(c.req.param('destinationId'))),
  );

  app.patch(
    '/api/event-destinations/:destinationId',
    guard('PATCH /api/event-destinations/{destinationId}'),
    refusePrivateKeys(),
    async (c) => {
      const id = c.req.param('destinationId');
      const change = await jsonRequest(c, destinationChangeSchema);
      const before = await destinations.get(id);
      const after = await destinations.change(id, change, c.var.operator.name);
      const action =
        change.enabled === false && before.enabled
          ? 'event_destination.disabled'
          : change.enabled === true && !before.enabled
            ? 'event_destination.enabled'
            : 'event_destination.updated';
      await audited(c, operators, action, { target: target(id), before, after });
      return c.json(after);
    },
  );

  app.delete(
    '/api/event-destinations/:destinationId',
    guard('DELETE /api/event-destinations/{destinationId}'),
    async (c) => {
      const id = c.req.param('destinationId');
      const before = await destinations.remove(id);
      await audited(c, operators, 'event_destination.removed', { target: target(id), before });
      return c.body(null, 204);
    },
  );

  app.post(
    '/api/event-destinations/:destinationId/rotate-secret',
    guard('POST /api/event-destinations/{destinationId}/rotate-secret'),
    refusePrivateKeys(),
    async (c) => {
      const id = c.req.param('destinationId');
      const { expiresInSeconds } = await jsonRequest(c, rotateSecretSchema);
      const rotated = await destinations.rotateSecret(id, expiresInSeconds);
      await audited(c, operators, 'event_destination.secret_rotated', {
        target: target(id),
        after: { previousSecretExpiresAt: rotated.destination.previousSecretExpiresAt },
      });
      return c.json(rotated);
    },
  );

  app.post(
    '/api/event-destinations/:destinationId/skip',
    guard('POST /api/event-destinations/{destinationId}/skip'),
    refusePrivateKeys(),
    async (c) => {
      const id = c.req.param('destinationId');
      const skipped = await destinations.skip(id);
      await audited(c, operators, 'event_destination.skipped', { target: target(id), after: { skipped } });
      return c.json({ skipped });
    },
  );

  app.post(
    '/api/event-destinations/:destinationId/test',
    guard('POST /api/event-destinations/{destinationId}/test'),
    refusePrivateKeys(),
    async (c) => {
      const id = c.req.param('destinationId');
      const { eventId, statusCode, durationMs, error } = await destinations.sendTest(id);
      const result = { eventId, statusCode, durationMs, error };
      await audited(c, operators, 'event_destination.tested', { target: target(id), after: result });
      return c.json(result);
    },
  );

  app.get(
    '/api/event-destinations/:destinationId/deliveries',
    guard('GET /api/event-destinations/{destinationId}/deliveries'),
    async (c) => {
      const query = deliveryLogQuerySchema.safeParse(c.req.query());
      if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
      try {
        const page = await destinations.deliveries(c.req.param('destinationId'), query.data);
        return c.json({ deliveries: page.deliveries.map(deliveryView), nextCursor: page.nextCursor });
      } catch (error) {
        if (error instanceof InvalidEventCursorError) throw new HttpProblem(400, error.message);
        throw error;
      }
    },
  );
  return app;
}

const DESTINATION = {
  destinationId: { description: 'The destination’s id, from listEventDestinations', example: DESTINATION_ID_EXAMPLE },
};
const UNKNOWN = 'Unknown event destination';
const ENVIRONMENT = 'The destination is KASSA_EVENTS_URL (changed in the settings)';
const NO_BODY = 'The body carries a private key (this route needs no body)';
const MANAGE = { auth: 'operator', permission: 'destinations:manage' } as const;
/** What a change to one destination may answer besides its success. */
const CHANGE_ERRORS = {
  ...OPERATOR_ERRORS,
  403: 'The role lacks destinations:manage',
  404: UNKNOWN,
  409: ENVIRONMENT,
} as const;
const READ = { auth: 'operator', permission: 'events:read' } as const;
const { status, limit, cursor } = deliveryLogQuerySchema.shape;

export const destinationOperations: ApiOperations = {
  'GET /api/event-destinations': {
    operationId: 'listEventDestinations',
    summary: 'List the event destinations',
    description:
      'Every receiver of the merchant’s events: KASSA_EVENTS_URL first (kind `environment`) when set, then those added here, each with its event types, whether it is enabled, and how many deliveries wait for it. Secrets are never shown again.',
    audience: 'operator',
    access: READ,
    responses: {
      200: {
        description: 'The destinations',
        json: { schema: destinationListSchema, example: { destinations: [destinationExample] } },
      },
    },
    errors: OPERATOR_ERRORS,
  },
  'POST /api/event-destinations': {
    operationId: 'createEventDestination',
    summary: 'Add an event destination',
    description:
      'A new receiver: an https URL (plain http only on loopback), the event types it takes (`*` for all) and whether it starts enabled. The answer carries its Standard Webhooks secret, shown this once. It receives the events written from now on.',
    audience: 'operator',
    access: MANAGE,
    request: { schema: newDestinationSchema, example: newDestinationExample },
    responses: {
      201: {
        description: 'Added, with its secret',
        json: {
          schema: destinationWithSecretSchema,
          example: { destination: destinationExample, secret: SECRET_EXAMPLE },
        },
      },
    },
    errors: { ...OPERATOR_ERRORS, 400: BAD_BODY, 403: 'The role lacks destinations:manage', 409: ENVIRONMENT },
  },
  'GET /api/event-destinations/{destinationId}': {
    operationId: 'getEventDestination',
    summary: 'Read an event destination',
    description: 'One destination, as listed.',
    audience: 'operator',
    access: READ,
    params: DESTINATION,
    responses: {
      200: { description: 'The destination', json: { schema: destinationSchema, example: destinationExample } },
    },
    errors: { ...OPERATOR_ERRORS, 404: UNKNOWN },
  },
  'PATCH /api/event-destinations/{destinationId}': {
    operationId: 'updateEventDestination',
    summary: 'Change, disable or enable an event destination',
    description:
      'Changes its URL, description or event types, or disables it (its events wait, pending, in order) or enables it (they go now, oldest first).',
    audience: 'operator',
    access: MANAGE,
    params: DESTINATION,
    request: { schema: destinationChangeSchema, example: { enabled: false } },
    responses: {
      200: {
        description: 'Changed',
        json: {
          schema: destinationSchema,
          example: {
            ...destinationExample,
            enabled: false,
            disabledAt: '2026-11-23T18:05:00.000Z',
            disabledReason: 'Disabled by Ada Admin',
          },
        },
      },
    },
    errors: { ...CHANGE_ERRORS, 400: BAD_BODY },
  },
  'DELETE /api/event-destinations/{destinationId}': {
    operationId: 'deleteEventDestination',
    summary: 'Remove an event destination',
    description: 'It receives nothing more; the deliveries that waited for it go with it.',
    audience: 'operator',
    access: MANAGE,
    params: DESTINATION,
    responses: { 204: { description: 'Removed' } },
    errors: CHANGE_ERRORS,
  },
  'POST /api/event-destinations/{destinationId}/rotate-secret': {
    operationId: 'rotateEventDestinationSecret',
    summary: 'Rotate a destination’s secret',
    description:
      'A new secret, shown this once. The previous one keeps signing beside it for `expiresInSeconds` (24 hours by default, a week at most): meanwhile each event carries both signatures in `webhook-signature`, so the receiver can move to the new secret with no event refused.',
    audience: 'operator',
    access: MANAGE,
    params: DESTINATION,
    request: { schema: rotateSecretSchema, example: { expiresInSeconds: 86_400 } },
    responses: {
      200: {
        description: 'Rotated, with the new secret',
        json: {
          schema: destinationWithSecretSchema,
          example: {
            destination: { ...destinationExample, previousSecretExpiresAt: '2026-11-24T18:00:00.000Z' },
            secret: SECRET_EXAMPLE,
          },
        },
      },
    },
    errors: { ...CHANGE_ERRORS, 400: BAD_BODY },
  },
  'POST /api/event-destinations/{destinationId}/skip': {
    operationId: 'skipEventDestinationBacklog',
    summary: 'Skip the deliveries waiting for a destination',
    description:
      'Every pending delivery of the destination (a disabled one’s backlog, or a failing one’s) is marked `skipped` and will not be sent; the action is audited with how many.',
    audience: 'operator',
    access: MANAGE,
    params: DESTINATION,
    responses: {
      200: { description: 'How many were skipped', json: { schema: skipResultSchema, example: { skipped: 12 } } },
    },
    errors: { ...CHANGE_ERRORS, 400: NO_BODY },
  },
  'POST /api/event-destinations/{destinationId}/test': {
    operationId: 'testEventDestination',
    summary: 'Send a test event',
    description:
      'Posts a signed `kassa.test` event (`data: {destinationId}`) to the destination now, outside its queue, and answers how the receiver answered: its status code, or the error, and how long it took (up to 15 s).',
    audience: 'operator',
    access: MANAGE,
    params: DESTINATION,
    responses: {
      200: {
        description: 'What the receiver answered',
        json: {
          schema: testDeliverySchema,
          example: { eventId: 'evt_test_c2VuZCBhIHRlc3Q', statusCode: 204, durationMs: 18.2, error: null },
        },
      },
    },
    errors: { ...OPERATOR_ERRORS, 400: NO_BODY, 403: 'The role lacks destinations:manage', 404: UNKNOWN },
  },
  'GET /api/event-destinations/{destinationId}/deliveries': {
    operationId: 'listEventDeliveries',
    summary: 'A destination’s delivery log',
    description:
      'Its deliveries, newest first: status, attempts, the last attempt’s status code, latency and error, and when the next retry is due.',
    audience: 'operator',
    access: READ,
    params: DESTINATION,
    query: queryOf(
      { status, limit, cursor },
      {
        status: 'pending, delivered, failed or skipped',
        limit: 'Deliveries per page, 1 to 200',
        cursor: 'nextCursor of the previous page',
      },
    ),
    responses: {
      200: {
        description: 'A page',
        json: { schema: deliveryLogSchema, example: { deliveries: [deliveryExample], nextCursor: null } },
      },
    },
    errors: {
      ...OPERATOR_ERRORS,
      400: 'A filter, limit or cursor is malformed (the message names it)',
      404: UNKNOWN,
      409: ENVIRONMENT,
    },
  },
};

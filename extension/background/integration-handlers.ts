/**
 * The requests about the merchant's integration: event destinations (their delivery logs, a test
 * event, a secret rotated, a backlog skipped) and merchant keys. Each is one call to the proxy's
 * route for it, its answer checked against the proxy's schema; the proxy judges every permission
 * and audits every change. Secrets pass through to the page that asked, and are kept nowhere.
 */
import type { z } from 'zod';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  deliveryLogSchema,
  destinationListSchema,
  destinationSchema,
  destinationWithSecretSchema,
  newDestinationSchema,
  skipResultSchema,
  testDeliverySchema,
} from '../../schemas/event-destinations.ts';
import {
  merchantKeyListSchema,
  merchantKeySchema,
  merchantKeyWithSecretSchema,
  newMerchantKeySchema,
} from '../../schemas/merchant-keys.ts';
import { operatorCall } from './operator-api.ts';
import { proxyAnswer, query } from './proxy-answer.ts';
import { RefusedRequest, type UiHandlers } from './ui-requests.ts';

const id = (value: string) => encodeURIComponent(value);
const destination = (destinationId: string, action = '') => `/api/event-destinations/${id(destinationId)}${action}`;
const DELIVERIES_PAGE = 50;

/**
 * Makes something at `path` (a destination, a key) from a body checked first with the proxy's own
 * schema for it (its words are the page's error); the answer, with the secret, as `answer` says.
 */
async function make<S extends z.ZodType, T>(
  path: string,
  request: S,
  body: z.input<S>,
  answer: Parameters<typeof proxyAnswer<T>>[0],
): Promise<T> {
  const parsed = request.safeParse(body);
  if (!parsed.success) throw new RefusedRequest(describeZodError(parsed.error));
  return proxyAnswer(answer, await operatorCall(path, { method: 'POST', body: parsed.data }));
}

export const destinationHandlers = {
  'destinations.list': async () => proxyAnswer(destinationListSchema, await operatorCall('/api/event-destinations')),
  'destinations.create': ({ url, description, enabledEvents }) =>
    make(
      '/api/event-destinations',
      newDestinationSchema,
      { url, description, enabledEvents },
      destinationWithSecretSchema,
    ),
  'destinations.setEnabled': async (request) =>
    proxyAnswer(
      destinationSchema,
      await operatorCall(destination(request.id), { method: 'PATCH', body: { enabled: request.enabled } }),
    ),
  'destinations.rotateSecret': async (request) =>
    proxyAnswer(
      destinationWithSecretSchema,
      await operatorCall(destination(request.id, '/rotate-secret'), {
        method: 'POST',
        body: { expiresInSeconds: request.expiresInSeconds },
      }),
    ),
  'destinations.skip': async (request) =>
    proxyAnswer(skipResultSchema, await operatorCall(destination(request.id, '/skip'), { method: 'POST' })),
  'destinations.test': async (request) =>
    proxyAnswer(testDeliverySchema, await operatorCall(destination(request.id, '/test'), { method: 'POST' })),
  'destinations.remove': async (request) => {
    await operatorCall(destination(request.id), { method: 'DELETE' });
    return { done: true };
  },
  'destinations.deliveries': async ({ id: destinationId, status, cursor }) =>
    proxyAnswer(
      deliveryLogSchema,
      await operatorCall(destination(destinationId, `/deliveries${query({ status, cursor, limit: DELIVERIES_PAGE })}`)),
    ),
} satisfies Partial<UiHandlers>;

export const merchantKeyHandlers = {
  'merchantKeys.list': async () => proxyAnswer(merchantKeyListSchema, await operatorCall('/api/merchant-keys')),
  'merchantKeys.create': ({ name, scopes, expiresInDays }) =>
    make('/api/merchant-keys', newMerchantKeySchema, { name, scopes, expiresInDays }, merchantKeyWithSecretSchema),
  'merchantKeys.roll': async (request) =>
    proxyAnswer(
      merchantKeyWithSecretSchema,
      await operatorCall(`/api/merchant-keys/${id(request.id)}/roll`, {
        method: 'POST',
        body: { expiresInSeconds: request.expiresInSeconds },
      }),
    ),
  'merchantKeys.revoke': async (request) =>
    proxyAnswer(merchantKeySchema, await operatorCall(`/api/merchant-keys/${id(request.id)}`, { method: 'DELETE' })),
} satisfies Partial<UiHandlers>;

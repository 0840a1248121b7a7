import { http } from '../http.ts';
import { as } from '../operators.ts';
import { eventually } from '../stack.ts';
import type { Walk } from './walk.ts';

/**
 * The merchant's events, their destinations and the merchant keys. The payment completed by
 * walkOperatorMoney wrote events (sent to a closed port, so they wait for a retry).
 */
export async function walkEvents({ stack, origin }: Walk): Promise<void> {
  const { id } = await eventually(async () => (await stack.operator('/api/events')).body.events[0]);
  await stack.operator('/api/events?status=lost');
  await stack.operator(`/api/events/evt_unknown`);
  await stack.operator(`/api/events/${id}`);
  await stack.operator(`/api/events/${id}/redeliver`, { method: 'POST' });
  const [endpoint] = (await stack.operator('/api/events')).body.endpoints;
  await stack.operator(`/api/events/endpoints/${endpoint.id}/enable`, { method: 'POST' });
  await stack.operator('/api/events/endpoints/ep_unknown/enable', { method: 'POST' });
  // Event destinations: one added (on loopback: the proxy itself answers its test event), read,
  // changed, tested, its log read, its secret rotated, its backlog skipped, then removed.
  const added = await stack.operator('/api/event-destinations', {
    body: { url: `${stack.proxy.origin}/healthz`, enabledEvents: ['checkout.paid'] },
  });
  const destinationId = (added.body.destination as { id: string }).id;
  await stack.operator('/api/event-destinations', { body: { url: 'http://10.0.0.1/hook' } });
  await stack.operator('/api/event-destinations');
  await stack.operator(`/api/event-destinations/${destinationId}`);
  await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'PATCH', body: { enabled: false } });
  await stack.operator(`/api/event-destinations/${endpoint.id}`, { method: 'PATCH', body: { enabled: false } });
  await stack.operator(`/api/event-destinations/${destinationId}/test`, { method: 'POST' });
  await stack.operator(`/api/event-destinations/${destinationId}/deliveries?status=pending`);
  await stack.operator(`/api/event-destinations/${destinationId}/deliveries?cursor=x`);
  await stack.operator(`/api/event-destinations/${destinationId}/rotate-secret`, { body: { expiresInSeconds: 60 } });
  await stack.operator(`/api/event-destinations/${destinationId}/skip`, { method: 'POST' });
  await as(origin, await stack.addOperator('viewer', 'Destination Viewer'))(
    `/api/event-destinations/${destinationId}/skip`,
    {
      method: 'POST',
    },
  );
  await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'DELETE' });
  await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'DELETE' });
  // Merchant keys: one made, used outside its scope (403), rolled, revoked (and again: 409).
  const made = await stack.operator('/api/merchant-keys', { body: { name: 'Reader', scopes: ['checkouts:read'] } });
  await stack.operator('/api/merchant-keys');
  await http(`${origin}/api/checkouts`, {
    headers: { Authorization: `Bearer ${made.body.secret as string}` },
    body: { amount: '1.00', currencyCode: 'EUR', reference: 'SCOPE' },
  });
  const rolledKey = await stack.operator(`/api/merchant-keys/${made.body.key.id as string}/roll`, {
    body: { expiresInSeconds: 0 },
  });
  await stack.operator(`/api/merchant-keys/${rolledKey.body.key.id as string}`, { method: 'DELETE' });
  await stack.operator(`/api/merchant-keys/${rolledKey.body.key.id as string}`, { method: 'DELETE' });
  await stack.operator(`/api/events/redeliver`, { body: { status: 'failed', since: '2026-01-01T00:00:00Z' } });
  await stack.operator(`/api/events/redeliver`, { body: { status: 'delivered' } });
}

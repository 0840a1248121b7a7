import { createHash } from 'node:crypto';
import type { EventEndpointView } from '../../schemas/event-endpoint.ts';
import type { EndpointState } from '../state/outbox.ts';

/**
 * A destination of the merchant's events: today KASSA_EVENTS_URL alone. Its id comes from its address,
 * so that pointing KASSA_EVENTS_URL elsewhere (after a receiver said 410 Gone) starts afresh.
 */
export interface EventEndpoint {
  id: string;
  url: string;
}

export const eventEndpoint = (url: string): EventEndpoint => ({
  id: `ep_${createHash('sha256').update(url).digest('base64url').slice(0, 16)}`,
  url,
});

export const endpointView = (endpoint: EventEndpoint, state: EndpointState): EventEndpointView => ({
  id: endpoint.id,
  url: endpoint.url,
  enabled: state.disabledAt === null,
  disabledAt: state.disabledAt === null ? null : new Date(state.disabledAt).toISOString(),
  disabledReason: state.disabledReason,
});

/** The event destinations' examples for the OpenAPI document. */
import type { DeliveryView, DestinationView, NewDestination } from '../../schemas/event-destinations.ts';

export const DESTINATION_ID_EXAMPLE = 'dest_ZnVsZmlsbWVudC1ob29r';
/** The documentation's example secret (events.md): never use it. */
export const SECRET_EXAMPLE = 'whsec_a2Fzc2EtZXhhbXBsZS1zZWNyZXQtZG8tbm90LXVzZSE=';

export const newDestinationExample: NewDestination = {
  url: 'https://fulfilment.shop.example/kassa/events',
  description: 'Fulfilment',
  enabledEvents: ['checkout.paid', 'checkout.expired'],
  enabled: true,
};

export const destinationExample: DestinationView = {
  id: DESTINATION_ID_EXAMPLE,
  ...newDestinationExample,
  kind: 'api',
  disabledAt: null,
  disabledReason: null,
  createdAt: '2026-11-23T17:00:00.000Z',
  previousSecretExpiresAt: null,
  pending: 0,
};

export const deliveryExample: DeliveryView = {
  eventId: 'evt_mM1y2nVYPq4DqX1dZ5t3Cg',
  type: 'checkout.paid',
  status: 'delivered',
  createdAt: '2026-11-23T18:01:00.000Z',
  attempts: 1,
  nextAttemptAt: null,
  deliveredAt: '2026-11-23T18:01:00.120Z',
  lastAttemptAt: '2026-11-23T18:01:00.100Z',
  lastStatusCode: 200,
  lastDurationMs: 20.4,
  lastError: null,
};

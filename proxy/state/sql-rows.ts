/** SQL rows as the store's records: SQLite and PostgreSQL name their columns alike. */
import type { PurchaseState } from '../../schemas/onramp.ts';
import type { DeliveryRecord, DestinationRecord, DestinationSecret } from './destinations.ts';
import type { EndpointState, EventAttemptRecord, StoredEvent } from './outbox.ts';
import type { PurchaseAuditRecord } from './purchases.ts';
import type { Attempt, Checkout, Payment } from './store.ts';

export type Row = Record<string, unknown>;

export const toCheckout = (row: Row): Checkout => ({
  checkoutId: row.checkout_id as string,
  amount: row.amount as string,
  currencyCode: row.currency_code as string,
  reference: row.reference as string,
  metadata: (row.metadata as string | null) ?? null,
  createdAt: row.created_at as number,
  expiresAt: row.expires_at as number,
  currentAttempt: (row.current_attempt as string | null) ?? null,
});

export const toAttempt = (row: Row): Attempt => ({
  idempotencyKey: row.idempotency_key as string,
  fingerprint: row.fingerprint as string,
  checkoutId: (row.checkout_id as string | null) ?? null,
  statusToken: row.status_token as string,
  state: row.state as Attempt['state'],
  transactionId: (row.transaction_id as string | null) ?? null,
  createdAt: row.created_at as number,
});

export const toPayment = (row: Row): Payment => ({
  transactionId: row.transaction_id as string,
  statusToken: row.status_token as string,
  idempotencyKey: row.idempotency_key as string,
  checkoutId: (row.checkout_id as string | null) ?? null,
  amount: row.amount as string,
  currencyCode: row.currency_code as string,
  reference: row.reference as string,
  environment: row.environment as Payment['environment'],
  flowUrl: row.flow_url as string,
  status: row.status as string,
  networkStatus: (row.network_status as string | null) ?? null,
  networkPaymentId: (row.network_payment_id as string | null) ?? null,
  paymentRail: (row.payment_rail as string | null) ?? null,
  providerId: (row.provider_id as string | null) ?? null,
  endToEndId: (row.end_to_end_id as string | null) ?? null,
  returnUrl: (row.return_url as string | null) ?? null,
  initiatedAt: row.initiated_at as string,
  updatedAt: row.updated_at as string,
  completedAt: (row.completed_at as string | null) ?? null,
  createdAt: row.created_at as number,
  lastCheckedAt: (row.last_checked_at as number | null) ?? null,
  revision: row.revision as number,
});

export const toEvent = (row: Row): StoredEvent => ({
  eventId: row.event_id as string,
  type: row.type as StoredEvent['type'],
  transactionId: (row.transaction_id as string | null) ?? null,
  checkoutId: (row.checkout_id as string | null) ?? null,
  sequence: row.sequence as number,
  createdAt: row.created_at as number,
  payload: row.payload as string,
  status: row.status as StoredEvent['status'],
  attempts: row.attempts as number,
  nextAttemptAt: (row.next_attempt_at as number | null) ?? null,
  deliveredAt: (row.delivered_at as number | null) ?? null,
  lastError: (row.last_error as string | null) ?? null,
});

export const toAttemptRecord = (row: Row): EventAttemptRecord => ({
  at: row.at as number,
  durationMs: row.duration_ms as number,
  statusCode: (row.status_code as number | null) ?? null,
  error: (row.error as string | null) ?? null,
});

export const toEndpointState = (row: Row): EndpointState => ({
  endpointId: row.endpoint_id as string,
  goneInARow: row.gone_in_a_row as number,
  disabledAt: (row.disabled_at as number | null) ?? null,
  disabledReason: (row.disabled_reason as string | null) ?? null,
});

export const toDestination = (row: Row): DestinationRecord => ({
  destinationId: row.endpoint_id as string,
  url: row.url as string,
  description: row.description as string,
  enabledEvents: JSON.parse(row.enabled_events as string) as string[],
  secrets: JSON.parse(row.secrets as string) as DestinationSecret[],
  createdAt: Number(row.created_at),
  disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
  disabledReason: (row.disabled_reason as string | null) ?? null,
});

const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export const toDelivery = (row: Row): DeliveryRecord => ({
  eventId: row.event_id as string,
  type: row.type as DeliveryRecord['type'],
  status: row.status as DeliveryRecord['status'],
  createdAt: Number(row.created_at),
  attempts: Number(row.attempts),
  nextAttemptAt: numberOrNull(row.next_attempt_at),
  deliveredAt: numberOrNull(row.delivered_at),
  lastAttemptAt: numberOrNull(row.last_attempt_at),
  lastStatusCode: numberOrNull(row.last_status_code),
  lastDurationMs: numberOrNull(row.last_duration_ms),
  lastError: (row.last_error as string | null) ?? null,
});

export const toPurchaseAudit = (row: Row): PurchaseAuditRecord => ({
  action: row.action as PurchaseAuditRecord['action'],
  note: (row.note as string | null) ?? null,
  at: row.at as number,
  previousState: row.previous_state as PurchaseState,
  state: row.state as PurchaseState,
  requestId: (row.request_id as string | null) ?? null,
});

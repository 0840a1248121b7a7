import { randomBytes } from 'node:crypto';
import type { KassaEvent, KassaEventType } from '../../schemas/events.ts';
import { isTerminalStatus, type Environment } from '../../schemas/pay.ts';
import { merchantCheckoutView } from '../payments/checkouts.ts';
import { operatorView } from '../payments/status-view.ts';
import type { ExpiryRule, NewEvent, PaymentEventRule } from '../state/outbox.ts';

/** A checkout's events are ordered apart from its payments': money received supersedes an expiry. */
const CHECKOUT_SEQUENCE = { 'checkout.expired': 1, 'checkout.paid': 2 } as const;

/** Standard Webhooks message ids: unique, and the same on every attempt of one event. */
const newEventId = () => `evt_${randomBytes(16).toString('base64url')}`;

export function newEvent(
  event: KassaEvent,
  ids: { transactionId: string | null; checkoutId: string | null },
  createdAt: number,
): NewEvent {
  return {
    eventId: newEventId(),
    type: event.type satisfies KassaEventType,
    ...ids,
    sequence: event.sequence,
    createdAt,
    payload: JSON.stringify(event),
  };
}

/**
 * The events of a payment's change: `payment.completed` or `payment.failed` when it turns final, and
 * `checkout.paid` with it when it completes a checkout. Other changes (a bank step) send nothing.
 */
export const paymentEventRule =
  (now: () => number = Date.now): PaymentEventRule =>
  (previous, next, checkout) => {
    if (previous.status === next.status || !isTerminalStatus(next.status)) return [];
    const at = now();
    const timestamp = new Date(at).toISOString();
    const ids = { transactionId: next.transactionId, checkoutId: next.checkoutId };
    const events = [
      newEvent(
        next.status === 'COMPLETED'
          ? { type: 'payment.completed', timestamp, sequence: next.revision, data: operatorView(next, checkout, at) }
          : { type: 'payment.failed', timestamp, sequence: next.revision, data: operatorView(next, checkout, at) },
        ids,
        at,
      ),
    ];
    if (next.status === 'COMPLETED' && checkout) {
      const data = merchantCheckoutView(checkout, next.environment, undefined, next, at);
      events.push(
        newEvent({ type: 'checkout.paid', timestamp, sequence: CHECKOUT_SEQUENCE['checkout.paid'], data }, ids, at),
      );
    }
    return events;
  };

/**
 * A checkout past its expiry: `checkout.expired` once nothing can pay it any more. One whose payment is
 * still under way waits (it may yet complete); one that was paid is settled with no event (it sent
 * `checkout.paid` already).
 */
export const expiryRule =
  (environment: Environment, now: () => number = Date.now): ExpiryRule =>
  (checkout, attempt, payment) => {
    if (payment?.status === 'COMPLETED') return { settled: true, events: [] };
    if (attempt?.state === 'pending' || (payment && !isTerminalStatus(payment.status))) return { settled: false };
    const at = now();
    const data = merchantCheckoutView(checkout, payment?.environment ?? environment, attempt, payment, at);
    const event = newEvent(
      {
        type: 'checkout.expired',
        timestamp: new Date(at).toISOString(),
        sequence: CHECKOUT_SEQUENCE['checkout.expired'],
        data,
      },
      { transactionId: payment?.transactionId ?? null, checkoutId: checkout.checkoutId },
      at,
    );
    return { settled: true, events: [event] };
  };

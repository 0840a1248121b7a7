import type { KassaEventType } from '../../schemas/events.ts';
import { newEvent } from '../events/event-rules.ts';
import type { NewEvent } from '../state/outbox.ts';
import type { PurchaseRecord } from '../state/purchases.ts';
import { operatorPurchaseView } from './purchase-views.ts';

type PurchaseEventType = Extract<KassaEventType, `onramp.${string}`>;

/**
 * The merchant's event of a purchase's change, written with the change: its `sequence` is the
 * purchase's revision, so a receiver can order a purchase's events.
 */
export function purchaseEvent(
  type: PurchaseEventType,
  context: { paymentStatus: string | null; explorer: string | undefined },
  now: () => number = Date.now,
): (next: PurchaseRecord) => NewEvent[] {
  return (next) => {
    const at = now();
    const data = operatorPurchaseView(next, context.paymentStatus, context.explorer);
    return [
      newEvent(
        { type, timestamp: new Date(at).toISOString(), sequence: next.revision, data },
        { transactionId: next.transactionId, checkoutId: next.checkoutId },
        at,
      ),
    ];
  };
}

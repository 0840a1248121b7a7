import { newEvent } from '../events/event-rules.ts';
import { operatorView } from '../payments/status-view.ts';
import type { LinkRecord, LinkUse } from '../state/links.ts';
import type { NewEvent } from '../state/outbox.ts';
import type { Checkout, Payment } from '../state/records.ts';
import { linkView } from './link-views.ts';

/**
 * `link.paid`, written in the step that counts the use as paid: the link as it is then (its count and
 * total with this payment) and the payment. Its `sequence` is the link's count of payments, so a
 * receiver can tell the latest state of a link from an earlier one.
 */
export const linkPaidEvents =
  (origin: () => string | undefined, now: () => number = Date.now) =>
  (link: LinkRecord, use: LinkUse, payment: Payment, checkout: Checkout): NewEvent[] => {
    const at = now();
    return [
      newEvent(
        {
          type: 'link.paid',
          timestamp: new Date(at).toISOString(),
          sequence: link.paidUses,
          data: { link: linkView(link, origin(), at), payment: operatorView(payment, checkout, at) },
        },
        { transactionId: payment.transactionId, checkoutId: use.checkoutId },
        at,
      ),
    ];
  };

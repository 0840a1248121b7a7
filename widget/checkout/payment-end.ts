import type { Action } from '../shared/views.ts';
import type { PaymentEnd, PaymentFlow } from './flow-steps.ts';
import type { CheckoutMessages } from './messages/en.ts';

const FAILURE_REASONS: Record<string, keyof CheckoutMessages> = { CANCELLED: 'cancelled', REJECTED: 'rejected' };

/**
 * What the end of a payment says and offers: why it failed, and whether the customer may pay again
 * (with another bank after a rejection), or, with an open amount, start again. Part of the status
 * stream's chunk: only a followed payment ends, so kassa.js need not carry it.
 */
export function paymentEnd(flow: PaymentFlow): PaymentEnd {
  /** The proxy says whether a failed payment may be followed by a new one; an open amount also needs its attributes here. */
  const canPayAgain = () =>
    !!flow.payment?.retryable && (flow.payment.checkoutId !== null || !!flow.host.amount || !!flow.field);
  return {
    failedLine(m) {
      const reason = m[FAILURE_REASONS[flow.payment?.networkStatus ?? ''] ?? 'bankError'];
      return `${m.failed} ${reason}${canPayAgain() ? '' : ` ${m.contactShop}`}`;
    },
    button(m, locale): Action | undefined {
      if (flow.host.phase === 'completed')
        return flow.field && [flow.field.m(locale).startAgain, () => flow.startAgain()];
      if (!canPayAgain()) return undefined;
      return [
        flow.payment?.networkStatus === 'REJECTED' ? m.anotherBank : m.tryAgain,
        () => {
          // A new attempt: a new key, so a new payment.
          flow.attempts?.clear();
          flow.apply({ payment: undefined, phase: 'ready' });
          void flow.pay();
        },
      ];
    },
  };
}

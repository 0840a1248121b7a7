import type { ProblemOptions } from '../shared/problem-controller.ts';
import type { CheckoutMessages } from './messages/en.ts';

/** What the customer is told when the proxy refuses, by HTTP status. */
const REFUSALS: Record<number, keyof CheckoutMessages> = {
  403: 'notAllowed',
  404: 'unknown',
  409: 'paid',
  410: 'expired',
};

/** The checkout's words for what the proxy answers, and when "Try again" is offered. */
export const CHECKOUT_PROBLEMS: ProblemOptions<CheckoutMessages> = {
  event: 'kassa-error',
  refusals: REFUSALS,
  refused: 'refused',
  tones: { paid: 'success' },
  // Refusals stand (an unknown checkout stays unknown), except a key to replace (422) or a wait.
  retryable: ({ kind, status, retryAfter }) => kind !== 'rejected' || status === 422 || !!retryAfter,
};

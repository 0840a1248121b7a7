/**
 * The checkout's public types: its phases and the detail of its `kassa-error` and
 * `kassa-payment-created` events (the status events carry the proxy's `PaymentStatusView`).
 */
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';
import type { ProxyErrorKind } from '../shared/proxy-client.ts';

/** What the customer sees; `phase` reflects it as an attribute for the page's own styling. */
export type CheckoutPhase =
  | 'loading'
  | 'ready'
  | 'creating'
  | 'redirecting'
  | 'authorising'
  | 'phone'
  | 'waiting'
  | 'completed'
  | 'failed'
  | 'error';

/** `kassa-payment-created`: the proxy made (or, `replayed`, found) the payment for this checkout. */
export interface PaymentCreatedDetail {
  transactionId: string;
  checkoutId: string | null;
  environment: 'sandbox' | 'live';
  /** The bank's page the customer is about to be sent to (already checked). */
  flowUrl: string;
  replayed: boolean;
}

/** `kassa-error`: something stopped the element; `message` is the proxy's text, for developers. */
export interface CheckoutErrorDetail {
  kind: ProxyErrorKind | 'untrusted-flow-url' | 'misconfigured';
  /** The proxy's HTTP status; 0 when there was no answer or no request. */
  status: number;
  message: string;
  /** Seconds until trying again makes sense, when known. */
  retryAfter?: number;
  /** With `misconfigured`: what the shop must change (the console names the setting too). */
  code?: MisconfigurationCode;
}

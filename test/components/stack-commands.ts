/** What the browser side (support.ts) and the server side (kassa-stack-plugin.ts) of the component tests share. */

/** The page the element is mounted in for journeys through the bank (see fixtures/frame.html). */
export const FRAME_PATH = '/test/components/fixtures/frame.html';

/** Payloads of the server commands, as the browser side (support.ts) sends them. */
export interface StackPayload {
  /** Which stack: each name is its own emulator and proxy, started on first use. */
  stack?: string;
  /** Proxy settings for a named stack, by environment name, applied when it starts. */
  env?: Record<string, string>;
  /**
   * The proxy's on-ramp on, as test/support/onramp.ts sets it (EUR → eEUR, GBP → eGBR, 1 to 500, 1,000
   * a wallet a day), and the emulator's issuer minting submitted orders at once.
   */
  onramp?: boolean;
  /** How long a purchase's checkout may be paid (the proxy's `onrampPaymentWindowSeconds`; 30 minutes by default). */
  paymentWindowSeconds?: number;
}
export interface CheckoutPayload extends StackPayload {
  body?: Record<string, unknown>;
}
export interface ControlPayload extends StackPayload {
  path: string;
  body?: unknown;
  method?: string;
}
export interface OnrampPurchasePayload extends StackPayload {
  /** anvil's account of this index is the wallet, and signs the quote's message. */
  account: number;
  /** The quote's fields besides the wallet (eEUR on Kassa Local Two, 25 by default). */
  body?: Record<string, unknown>;
}
export interface OnrampWalletPayload extends StackPayload {
  wallet: string;
}
export interface BankPayload {
  flowUrl: string;
  action: 'authorise' | 'cancel';
  providerId?: string;
}

/**
 * The attributes and events of Kassa's elements as templates write them, shared by the React, Vue
 * and Svelte declarations beside this file.
 */
import type {
  BridgeArrivedDetail,
  BridgeDelayedDetail,
  BridgeErrorDetail,
  BridgeMinedDetail,
  BridgeRefundedDetail,
  BridgeSubmittedDetail,
  CheckoutErrorDetail,
  PaymentCreatedDetail,
  PaymentStatusView,
} from 'kassa/widget';

export type KassaTheme = 'auto' | 'light' | 'dark';

export interface KassaCheckoutAttributes {
  /** The origin of the shop's Kassa proxy. */
  proxy?: string;
  /** The id of a checkout the shop's server created (kassa/server `createCheckout`). */
  checkout?: string;
  amount?: string;
  currency?: string;
  reference?: string;
  'return-url'?: string;
  locale?: string;
  mode?: 'redirect' | 'popup';
  theme?: KassaTheme;
}

export interface KassaBridgeAttributes {
  proxy?: string;
  network?: 'test' | 'main';
  locale?: string;
  'help-url'?: string;
  theme?: KassaTheme;
}

/** Each event's detail, by the event's name. */
export interface KassaCheckoutEvents {
  'kassa-payment-created': CustomEvent<PaymentCreatedDetail>;
  'kassa-status': CustomEvent<PaymentStatusView>;
  'kassa-completed': CustomEvent<PaymentStatusView>;
  'kassa-failed': CustomEvent<PaymentStatusView>;
  'kassa-error': CustomEvent<CheckoutErrorDetail>;
}

export interface KassaBridgeEvents {
  'kassa-bridge-submitted': CustomEvent<BridgeSubmittedDetail>;
  'kassa-bridge-mined': CustomEvent<BridgeMinedDetail>;
  'kassa-bridge-delayed': CustomEvent<BridgeDelayedDetail>;
  'kassa-bridge-arrived': CustomEvent<BridgeArrivedDetail>;
  'kassa-bridge-refunded': CustomEvent<BridgeRefundedDetail>;
  'kassa-bridge-error': CustomEvent<BridgeErrorDetail>;
}

/** `on` + the event's name (React 19 and Svelte 5 listen to custom events so). */
export type OnEventProps<Events> = { [Name in keyof Events & string as `on${Name}`]?: (event: Events[Name]) => void };

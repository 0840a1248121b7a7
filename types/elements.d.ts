/**
 * The attributes and events of Kassa's elements as templates write them, shared by the React, Vue
 * and Svelte declarations beside this file.
 */
// The elements' own declarations (their HTMLElementEventMap entries) come with this import.
import 'kassa/widget';

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

export interface KassaOnrampAttributes {
  proxy?: string;
  /** A purchase's token (as in its link, `?kassa_purchase=…`): that purchase is shown rather than the form. */
  purchase?: string;
  'return-url'?: string;
  'help-url'?: string;
  locale?: string;
  mode?: 'redirect' | 'popup';
  theme?: KassaTheme;
}

type KassaEventName = keyof HTMLElementEventMap & `kassa-${string}`;

/** Each event's detail, by the event's name: read from the elements' own declarations, so the two never differ. */
export type KassaCheckoutEvents = {
  [
    Name in KassaEventName as Name extends `kassa-bridge-${string}` | `kassa-onramp-${string}` ? never : Name
  ]: HTMLElementEventMap[Name];
};

export type KassaBridgeEvents = {
  [Name in KassaEventName as Name extends `kassa-bridge-${string}` ? Name : never]: HTMLElementEventMap[Name];
};

/** The on-ramp's own events, and `kassa-error`; its embedded checkout's events reach the page from it too. */
export type KassaOnrampEvents = {
  [
    Name in KassaEventName as Name extends `kassa-onramp-${string}` | 'kassa-error' ? Name : never
  ]: HTMLElementEventMap[Name];
};

/** `on` + the event's name (React 19 and Svelte 5 listen to custom events so). */
export type OnEventProps<Events> = { [Name in keyof Events & string as `on${Name}`]?: (event: Events[Name]) => void };

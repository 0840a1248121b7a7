/**
 * `import type {} from 'kassa/svelte'`: <kassa-checkout>, <kassa-bridge> and <kassa-onramp> type-check in Svelte 5
 * markup, their events as `onkassa-completed={…}`.
 */
import type { HTMLAttributes } from 'svelte/elements';
import type { KassaBridge, KassaCheckout, KassaOnramp } from 'kassa/widget';
import type {
  KassaBridgeAttributes,
  KassaBridgeEvents,
  KassaCheckoutAttributes,
  KassaCheckoutEvents,
  KassaOnrampAttributes,
  KassaOnrampEvents,
  OnEventProps,
} from './elements.js';

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'kassa-checkout': HTMLAttributes<KassaCheckout> & KassaCheckoutAttributes & OnEventProps<KassaCheckoutEvents>;
    'kassa-bridge': HTMLAttributes<KassaBridge> & KassaBridgeAttributes & OnEventProps<KassaBridgeEvents>;
    'kassa-onramp': HTMLAttributes<KassaOnramp> & KassaOnrampAttributes & OnEventProps<KassaOnrampEvents>;
  }
}

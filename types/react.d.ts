/**
 * `import type {} from 'kassa/react'` (or list it in tsconfig `types`): <kassa-checkout>,
 * <kassa-bridge> and <kassa-onramp> type-check in React 19 JSX. React 19 sets their properties and listens to their
 * events itself: `onkassa-completed={(event) => …}`.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
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

type ElementProps<Instance, Attributes, Events> = DetailedHTMLProps<HTMLAttributes<Instance>, Instance> &
  Attributes &
  OnEventProps<Events>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'kassa-checkout': ElementProps<KassaCheckout, KassaCheckoutAttributes, KassaCheckoutEvents>;
      'kassa-bridge': ElementProps<KassaBridge, KassaBridgeAttributes, KassaBridgeEvents>;
      'kassa-onramp': ElementProps<KassaOnramp, KassaOnrampAttributes, KassaOnrampEvents>;
    }
  }
}

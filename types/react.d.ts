/**
 * `import type {} from 'kassa/react'` (or list it in tsconfig `types`): <kassa-checkout> and
 * <kassa-bridge> type-check in React 19 JSX. React 19 sets their properties and listens to their
 * events itself: `onkassa-completed={(event) => …}`.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { KassaBridge, KassaCheckout } from 'kassa/widget';
import type {
  KassaBridgeAttributes,
  KassaBridgeEvents,
  KassaCheckoutAttributes,
  KassaCheckoutEvents,
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
    }
  }
}

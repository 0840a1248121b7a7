/**
 * kassa.js: the one script a shop adds (`<script type="module" src=".../kassa.js">`). It defines
 * <kassa-checkout> at once, with Lit and the English messages; the other languages, and elements
 * with heavy dependencies, are chunks in kassa/ next to it, fetched only when a page needs them.
 */
import { defineOnUse } from './define-on-use.ts';

export { KassaCheckout } from './kassa-checkout.ts';
export type { CheckoutErrorDetail, CheckoutPhase, PaymentCreatedDetail } from './checkout/events.ts';
export type { PaymentStatusView } from '../schemas/proxy-api.ts';

export type {
  BridgeArrivedDetail,
  BridgeDelayedDetail,
  BridgeErrorDetail,
  BridgeErrorKind,
  BridgeMinedDetail,
  BridgePhase,
  BridgeRefundedDetail,
  BridgeStage,
  BridgeSubmittedDetail,
  BridgeTimeouts,
  BridgeTransferDetail,
} from './bridge/events.ts';
export type { KassaBridge } from './kassa-bridge.ts';

export type {
  OnrampDeliveredDetail,
  OnrampErrorDetail,
  OnrampErrorKind,
  OnrampPhase,
  OnrampStage,
  OnrampStatusDetail,
  PurchaseState,
  PurchaseView,
} from './onramp/events.ts';
export type { KassaOnramp } from './kassa-onramp.ts';

/**
 * Elements loaded on first use, each as its own chunk: the wallet panel brings ethers, which a page
 * with only a checkout never downloads, and the on-ramp its wallet and purchase code.
 */
const ON_FIRST_USE: ReadonlyArray<readonly [tag: string, load: () => Promise<unknown>]> = [
  ['kassa-bridge', () => import('./kassa-bridge.ts')],
  ['kassa-onramp', () => import('./kassa-onramp.ts')],
];
for (const [tag, load] of ON_FIRST_USE) defineOnUse(tag, load);

import type { ReactiveControllerHost } from 'lit';
import type { OnrampPhase } from './events.ts';

/** What the on-ramp's controllers see of the element. */
export interface OnrampHost extends ReactiveControllerHost, HTMLElement {
  phase: OnrampPhase;
  readonly returnUrl: string;
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** What the on-ramp does, each only in some phases. */
export type OnrampAction =
  /** Connect a wallet: the one the customer chose, or the one remembered. */
  | 'connect'
  /** Look for the wallet remembered across a reload. */
  | 'restore'
  /** "Disconnect": not while a purchase is being signed. */
  | 'disconnect'
  /** Change the coin, the network, the amount. */
  | 'edit'
  /** Quote, sign and create the purchase. */
  | 'buy'
  /** The status line tells a problem (while something is under way, it tells that instead). */
  | 'notice';

const FOLLOWING: readonly OnrampAction[] = [];
const ENDED: readonly OnrampAction[] = ['notice'];

/** Which actions each phase allows: every phase guard of the on-ramp reads this table. */
const ALLOWED: Record<OnrampPhase, readonly OnrampAction[]> = {
  loading: ['notice'],
  connect: ['connect', 'restore', 'notice'],
  connecting: ['restore', 'notice'],
  ready: ['disconnect', 'edit', 'buy', 'notice'],
  quoting: [],
  signing: [],
  creating: [],
  paying: FOLLOWING,
  paid: FOLLOWING,
  minting: FOLLOWING,
  delayed: FOLLOWING,
  delivered: ENDED,
  failed: ENDED,
  refunded: ENDED,
  error: ['notice'],
};

export const allows = (phase: OnrampPhase, action: OnrampAction): boolean => ALLOWED[phase].includes(action);

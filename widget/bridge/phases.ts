import type { ReactiveControllerHost } from 'lit';
import type { BridgePhase, BridgeTimeouts } from './events.ts';

/** What the panel's controllers see of the panel. */
export interface BridgeHost extends ReactiveControllerHost, HTMLElement {
  phase: BridgePhase;
  /** `test` or `main`: main networks' bridges are given longer before a transfer counts as delayed. */
  readonly network: string;
  readonly timeouts: Partial<BridgeTimeouts>;
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** What the panel does, each only in some phases. */
export type BridgeAction =
  /** Connect a wallet: the one the user chose, or the one remembered. */
  | 'connect'
  /** Look for the wallet remembered across a reload (connecting it where `connect` is allowed). */
  | 'restore'
  /** "Disconnect": not while a transfer is being signed or followed. */
  | 'disconnect'
  /** A wallet that connects opens the form. */
  | 'open-form'
  /** A wallet that goes away takes the panel back to the wallets (a transfer sent is still followed). */
  | 'lose-wallet'
  /** A wallet that changes account or chain has the balance read again. */
  | 'reread'
  /** Change the chains, the token, the amount. */
  | 'edit'
  /** Have the proxy prepare the transfer, and show it. */
  | 'review'
  | 'back'
  | 'confirm'
  /** Follow the transfer again once the panel is back in the page. */
  | 'resume'
  /** After a failure: keep waiting, or try again with the same choices. */
  | 'retry'
  /** A new transfer. */
  | 'start-over'
  /** The status line tells a problem (while something is under way, it tells that instead). */
  | 'notice';

/** Which actions each phase allows: every phase guard of the panel reads this table. */
const ALLOWED: Record<BridgePhase, readonly BridgeAction[]> = {
  loading: ['disconnect', 'notice'],
  connect: ['connect', 'restore', 'disconnect', 'open-form', 'notice'],
  connecting: ['restore', 'disconnect', 'open-form', 'lose-wallet', 'notice'],
  ready: ['restore', 'disconnect', 'lose-wallet', 'reread', 'edit', 'review', 'notice'],
  preparing: ['restore', 'disconnect', 'lose-wallet'],
  review: ['restore', 'disconnect', 'lose-wallet', 'back', 'confirm', 'notice'],
  switching: ['restore'],
  signing: ['restore'],
  submitted: ['connect', 'restore', 'resume'],
  mined: ['connect', 'restore', 'resume'],
  delayed: ['connect', 'restore', 'resume'],
  arrived: ['connect', 'restore', 'disconnect', 'reread', 'start-over', 'notice'],
  refunded: ['connect', 'restore', 'disconnect', 'reread', 'start-over', 'notice'],
  failed: ['connect', 'restore', 'disconnect', 'retry', 'start-over', 'notice'],
  error: ['disconnect', 'notice'],
};

export const allows = (phase: BridgePhase, action: BridgeAction): boolean => ALLOWED[phase].includes(action);

/** Moves keyboard focus to an element of the panel once it has rendered. */
export async function focusAfterUpdate(host: BridgeHost, selector: string): Promise<void> {
  await host.updateComplete;
  host.renderRoot.querySelector<HTMLElement>(selector)?.focus();
}

import { fill } from '../shared/i18n.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import type { Tone } from '../shared/views.ts';
import type { AccountChoice } from './account-choice.ts';
import type { OnrampPhase } from './events.ts';
import type { OnrampMessages } from './messages/en.ts';
import { allows } from './phases.ts';
import type { OnrampProblems } from './problems.ts';
import type { PurchaseController } from './purchase-controller.ts';

/** What the status line reads of the element. */
export interface OnrampState {
  phase: OnrampPhase;
  problems: OnrampProblems;
  purchases: PurchaseController;
  accounts: AccountChoice;
  /** The element shows its empty card, which has its own busy sign. */
  skeleton: boolean;
  /** The connected wallet reaches none of its chains (from its `disconnect` until its `connect`). */
  unreachable: boolean;
}

/**
 * What the on-ramp's status line says in each phase (an aria-live region, so each change is read
 * out): its text, tone and whether a spinner shows. A problem is told first where the phase allows it.
 */
export function statusLine(
  { phase, problems, purchases, accounts, skeleton, unreachable }: OnrampState,
  m: OnrampMessages,
  locale: string,
): [text: string, tone: Tone, busy: boolean] {
  if (problems.problem && allows(phase, 'notice')) return [...problems.line(m, locale), false];
  // Said until the wallet is back.
  if (unreachable && allows(phase, 'notice')) return [m.walletDisconnected, 'danger', false];
  // The skeleton: its own busy sign (theme.ts), nothing in this line that the content coming above could push down.
  if (skeleton) return ['', '', false];
  const view = purchases.view;
  const values = view && { amount: tokenAmount(view.amount, view.symbol, locale), chain: view.chainName };
  switch (phase) {
    case 'connect':
      return [accounts.status(m, phase, locale)!, '', false];
    case 'connecting':
    case 'quoting':
    case 'signing':
    case 'creating':
      return [accounts.status(m, phase, locale) ?? m[phase], '', true];
    case 'paid':
    case 'delayed':
      return [m[phase], '', true];
    case 'minting':
      return [fill(m.minting, values!), '', true];
    case 'delivered':
      return [fill(m.delivered, values!), 'success', false];
    case 'failed':
      return [m.failed, 'danger', false];
    case 'refunded':
      return [m.refunded, '', false];
    default:
      return ['', '', false];
  }
}

import { fill } from '../shared/i18n.ts';
import { formatDuration } from '../shared/format.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import type { Tone } from '../shared/views.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';
import { walletName } from '../shared/wallet/wallet-views.ts';
import type { BridgePhase, BridgeTimeouts } from './events.ts';
import type { FormController } from './form-controller.ts';
import type { BridgeMessages } from './messages/en.ts';
import { allows } from './phases.ts';
import { kindMessage, type BridgeProblems } from './problems.ts';
import type { TransferController } from './transfer-controller.ts';
import { DEFAULT_TIMEOUTS } from './transfer-follower.ts';

/** What the status line reads of the panel. */
export interface PanelState {
  phase: BridgePhase;
  problems: BridgeProblems;
  transfer: TransferController;
  form: FormController;
  wallet: WalletController;
  timeouts: Partial<BridgeTimeouts>;
  /** The panel shows its skeleton, which has its own busy sign. */
  skeleton: boolean;
}

/**
 * What the panel's status line says in each phase (an aria-live region, so each change is read out):
 * its text, tone and whether a spinner shows. A problem is told first where the phase allows it.
 */
export function statusLine(
  panel: PanelState,
  m: BridgeMessages,
  locale: string,
): [text: string, tone: Tone, busy: boolean] {
  const { phase, problems, transfer, form, wallet, skeleton } = panel;
  if (problems.problem && allows(phase, 'notice')) return [...problems.line(m, locale), false];
  // The wallet reaches none of its chains (its `disconnect`): said until it is back (its `connect`).
  if (wallet.session?.reachable === false && allows(phase, 'notice')) return [m.walletDisconnected, 'danger', false];
  // The skeleton: its own busy sign (theme.ts), nothing in this line that the content coming above could push down.
  if (skeleton) return ['', '', false];
  const record = transfer.record;
  const source = form.chain(record?.sourceChainId ?? form.sourceId)?.name ?? '';
  const destination = form.chain(record?.destinationChainId ?? form.destinationId)?.name ?? '';
  switch (phase) {
    case 'connect':
      return [wallet.wallets.length ? m.chooseWallet : wallet.settled ? m.noWallet : m.lookingForWallets, '', false];
    case 'connecting':
      return [fill(m.connecting, { wallet: wallet.connectingTo ? walletName(wallet.connectingTo, m) : '' }), '', true];
    case 'preparing':
      return [m.preparing, '', true];
    case 'switching':
      return [fill(m.switching, { chain: transfer.prepared?.source.name ?? source }), '', true];
    case 'signing':
      return [m.signing, '', true];
    case 'submitted':
      return [fill(m.submitted, { chain: source }), '', true];
    case 'mined':
      return [fill(m.mined, { source, destination }), '', true];
    case 'delayed':
      return [fill(m.delayed, { source, destination }), '', true];
    case 'refunded':
      return [
        fill(m.refunded, { amount: tokenAmount(record!.amount, record!.symbol, locale), source, destination }),
        'success',
        false,
      ];
    case 'arrived':
      return [
        fill(m.arrived, { amount: tokenAmount(record!.amount, record!.symbol, locale), chain: destination }),
        'success',
        false,
      ];
    case 'failed': {
      const failure = transfer.failure!;
      const arrival = failure.stage === 'arrival';
      const chain = arrival ? destination : source;
      if (failure.kind !== 'timeout')
        return [fill(m[kindMessage(failure.kind, 'rpcError')], { chain }), 'danger', false];
      const timeouts = { ...DEFAULT_TIMEOUTS, ...panel.timeouts };
      const wait = formatDuration(arrival ? timeouts.arrival : timeouts.mined, locale);
      return [fill(arrival ? m.arrivalTimeout : m.minedTimeout, { chain, wait }), 'danger', false];
    }
    default:
      return ['', '', false];
  }
}

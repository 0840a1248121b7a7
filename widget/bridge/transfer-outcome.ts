import { fromUnits } from '../../lib/money.ts';
import { emit } from '../shared/kassa-event.ts';
import type { ChainRpc } from './chain-rpc.ts';
import type { BridgeArrivedDetail, BridgeDelayedDetail, BridgeRefundedDetail, BridgeTransferDetail } from './events.ts';
import type { FormController } from './form-controller.ts';
import type { HistoryController } from './history-controller.ts';
import type { BridgeHost } from './phases.ts';
import type { Arrived, Refunded } from './transfer-follower.ts';
import type { TransferRecord, TransferStore } from './transfer-store.ts';

type Burned = TransferRecord & { burnId: string };

export const detailOf = ({ hash, from, sourceChainId, destinationChainId, symbol, amount }: TransferRecord) =>
  ({ hash, from, sourceChainId, destinationChainId, symbol, amount }) satisfies BridgeTransferDetail;

/** Mined but not arrived in the usual time: the panel says so, the history keeps it, the page hears it. */
export function announceDelay(
  host: BridgeHost,
  history: HistoryController,
  record: Burned,
  store: TransferStore | undefined,
): void {
  // Kept with the transfer: a reload shows it delayed at once, not after the time allowed again.
  record.delayedAt = Date.now();
  store?.save(record);
  host.phase = 'delayed';
  void history.update(record, { state: 'delayed' });
  emit<BridgeDelayedDetail>(host, 'kassa-bridge-delayed', {
    ...detailOf(record),
    burnId: record.burnId,
    waited: Date.now() - record.sentAt,
  });
}

/**
 * The end of a transfer: arrived (with the mint, and the balances on both chains afterwards) or
 * refunded on the source chain (with the refund). The page hears it; the history keeps it.
 */
export async function announceOutcome(
  host: BridgeHost,
  { history, form, source }: { history: HistoryController; form: FormController; source: ChainRpc },
  record: Burned,
  outcome: Arrived | Refunded,
): Promise<void> {
  const decimals = (chainId: number) => form.token(chainId, record.symbol)?.decimals ?? 18;
  if (outcome.kind === 'refunded') {
    emit<BridgeRefundedDetail>(host, 'kassa-bridge-refunded', {
      ...detailOf(record),
      burnId: outcome.burnId,
      refundHash: outcome.refundHash,
      refundBlock: outcome.refundBlock,
      balance: fromUnits(outcome.balance, decimals(record.sourceChainId)),
    });
    return history.update(record, {
      state: 'refunded',
      refundHash: outcome.refundHash,
      sourceBalance: String(outcome.balance),
    });
  }
  emit<BridgeArrivedDetail>(host, 'kassa-bridge-arrived', {
    ...detailOf(record),
    burnId: outcome.burnId,
    destinationHash: outcome.destinationHash,
    destinationBlock: outcome.destinationBlock,
    balance: fromUnits(outcome.balance, decimals(record.destinationChainId)),
  });
  // The source chain's balance after the burn, for the receipt; the receipt goes without it if unread.
  const sourceBalance = await source
    .tokenBalance(record.sourceToken, record.from, 'arrival')
    .then(String, () => undefined);
  await history.update(record, {
    state: 'arrived',
    destinationHash: outcome.destinationHash,
    destinationBalance: String(outcome.balance),
    ...(sourceBalance === undefined ? {} : { sourceBalance }),
  });
}

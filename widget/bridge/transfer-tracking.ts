import { emit } from '../shared/kassa-event.ts';
import type { ChainRpc } from './chain-rpc.ts';
import { BridgeError } from './errors.ts';
import type { BridgeMinedDetail } from './events.ts';
import type { FormController } from './form-controller.ts';
import type { HistoryController } from './history-controller.ts';
import type { BridgeHost } from './phases.ts';
import type { BridgeTimeouts } from './events.ts';
import { followToArrival, followToReceipt, type Arrived, type Mined, type Refunded } from './transfer-follower.ts';
import { announceDelay, announceOutcome, detailOf } from './transfer-outcome.ts';
import type { TransferRecord, TransferStore } from './transfer-store.ts';

export interface Tracking {
  host: BridgeHost;
  history: HistoryController;
  form: FormController;
  /** The tab's copy of the transfer (a reload follows it on), kept up to date as it goes. */
  store: TransferStore | undefined;
  source: ChainRpc;
  destination: ChainRpc;
  timeouts: BridgeTimeouts;
  signal: AbortSignal;
}

/** What the controller learns as the transfer goes, to show it. */
export interface TrackingReport {
  mined(mined: Mined): void;
  ended(outcome: Arrived | Refunded): void;
  failed(problem: BridgeError): void;
}

/**
 * Follows a sent transfer (just sent, or kept across a reload) to its receipt and its arrival (or
 * refund): keeps the tab's copy and the history up to date, says when it is late, and tells the page
 * (kassa-bridge-mined, -delayed, -arrived, -refunded). Resolves with its end; undefined when it was
 * stopped or failed (a failure that may still complete, a timeout or an RPC outage, keeps the tab's copy).
 */
export async function trackTransfer(
  record: TransferRecord,
  { host, history, form, store, source, destination, timeouts, signal }: Tracking,
  report: TrackingReport,
): Promise<Arrived | Refunded | undefined> {
  let mined = record.burnId !== undefined;
  let delay: ReturnType<typeof setTimeout> | undefined;
  try {
    if (!record.burnId) {
      const receipt = await followToReceipt(
        record,
        source,
        timeouts,
        {
          onRepriced: () => {
            store?.save(record);
            host.requestUpdate();
          },
          onMined: (found) => {
            record.burnId = found.burnId;
            record.blockNumber = String(found.blockNumber);
            record.hash = found.hash;
            record.fee = String(found.fee);
            store?.save(record);
          },
        },
        signal,
      );
      if (signal.aborted) return undefined;
      mined = true;
      report.mined(receipt);
      void history.update(record, { state: 'confirmed', fee: record.fee });
      emit<BridgeMinedDetail>(host, 'kassa-bridge-mined', {
        ...detailOf(record),
        blockNumber: receipt.blockNumber,
        burnId: receipt.burnId,
      });
    }
    const burned = record as TransferRecord & { burnId: string };
    // Late: say so, and what the user can do, while following on for the arrival or a refund.
    const late = () => !signal.aborted && host.phase === 'mined' && announceDelay(host, history, burned, store);
    if (!record.delayedAt) delay = setTimeout(late, Math.max(0, record.sentAt + timeouts.delayed - Date.now()));
    const outcome = await followToArrival(burned, { source, destination }, timeouts, Date.now(), signal);
    if (signal.aborted) return undefined;
    store?.clear();
    report.ended(outcome);
    await announceOutcome(host, { history, form, source }, burned, outcome);
    return outcome;
  } catch (error) {
    if (signal.aborted) return undefined;
    const problem =
      error instanceof BridgeError ? error : new BridgeError('rpc', mined ? 'arrival' : 'mined', String(error));
    // A transfer that may still complete is kept (a reload goes on following it); one that cannot is let go.
    if (problem.kind !== 'timeout' && problem.kind !== 'rpc') {
      store?.clear();
      void history.update(record, { state: 'failed', failure: problem.kind });
    }
    report.failed(problem);
    return undefined;
  } finally {
    clearTimeout(delay);
  }
}

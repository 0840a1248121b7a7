import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ChainDirectory } from '../bridge/chain-directory.ts';
import type { Coordination } from '../state/coordination.ts';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import type { Checkouts } from '../payments/checkouts.ts';
import type { Store } from '../state/store.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';
import type { TokenManager } from '../upstream/token-manager.ts';
import { MintWorker } from './mint-worker.ts';
import { Onramp } from './onramp.ts';
import { OnrampCatalog } from './onramp-catalog.ts';
import { OnrampMetrics } from './onramp-metrics.ts';
import type { OnrampSettings } from './onramp-settings.ts';
import { PurchaseMoves } from './purchase-moves.ts';
import { PurchaseOperations } from './purchase-operations.ts';
import { leaseHolders } from './purchase-lease.ts';

export interface OnrampParts {
  catalog: OnrampCatalog;
  service: Onramp;
  worker: MintWorker;
  operations: PurchaseOperations;
}

/** The on-ramp's parts, built once per proxy when KASSA_ONRAMP_COINS turns it on. */
export function createOnramp(deps: {
  settings: OnrampSettings;
  store: Store;
  coordination: Coordination;
  checkouts: Checkouts;
  orders: OrdersClient;
  chains: ChainDirectory;
  tokens: TokenManager;
  logger: Logger;
  rpcTimeoutMs: number;
  eventsWritten?: () => void;
  /** Where the on-ramp's metrics are registered (the proxy's /metrics registry). */
  registry: Registry;
  sweepMs?: number;
  paymentWindowSeconds?: number | undefined;
}): OnrampParts {
  const { settings, store, coordination, checkouts, orders, logger, rpcTimeoutMs } = deps;
  // This instance, unique across a fleet and across restarts: its worker is one holder of purchase
  // leases, and each of its operator requests another.
  const instance = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const catalog = new OnrampCatalog(settings, deps.chains, () => deps.tokens.environment());
  const moves = new PurchaseMoves({
    store,
    catalog,
    changes: coordination.purchaseChanges,
    logger,
    rpcTimeoutMs,
    eventsWritten: deps.eventsWritten,
    metrics: new OnrampMetrics(deps.registry, store.purchases),
  });
  const worker = new MintWorker({
    settings,
    store,
    checkouts,
    orders,
    moves,
    bus: coordination.bus,
    changes: coordination.purchaseChanges,
    logger,
    holder: leaseHolders.worker(instance),
    rpcTimeoutMs,
    sweepMs: deps.sweepMs,
  });
  return {
    catalog,
    service: new Onramp({
      settings,
      catalog,
      store,
      checkouts,
      logger,
      rpcTimeoutMs,
      paymentWindowSeconds: deps.paymentWindowSeconds,
    }),
    worker,
    operations: new PurchaseOperations({ store, orders, moves, worker, logger, instance }),
  };
}

/**
 * What proxy instances must agree on: upstream budgets, the cached access token and its exchange,
 * how often a payment is re-read, and status changes for SSE subscribers. One process keeps these
 * in memory (local-coordination.ts); a fleet shares them through Redis (redis/coordination.ts) or
 * PostgreSQL (postgres/coordination.ts), behind the same interfaces.
 */
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';

/** Granted now, or refused with how long until asking again may succeed. */
export type Grant = { ok: true } | { ok: false; retryInMs: number };

/** A per-minute request budget for one upstream endpoint group. */
export interface RateBudget {
  readonly limit: number;
  /**
   * Takes a slot when fewer than `limit - reserve` were taken in the window; otherwise says how long
   * until one frees. `reserve` keeps slots back for more urgent callers.
   */
  tryTake(reserve?: number): Promise<Grant>;
  /** The upstream answered 429: take nothing until `ms` from now. */
  pause(ms: number): Promise<void>;
  used(): Promise<number>;
}

export interface CachedToken {
  accessToken: string;
  environment: 'sandbox' | 'live';
  /** Epoch ms after which it must not be used (its expiry minus a margin). */
  refreshAt: number;
}

export interface TokenStore {
  get(): Promise<CachedToken | undefined>;
  set(token: CachedToken): Promise<void>;
  /** Forgets the token, but only if it is still this one (another exchange may have replaced it). */
  clear(accessToken: string): Promise<void>;
  /** Runs `exchange` unless one is in flight (per process, or fleet-wide), whose outcome callers then share. */
  exclusive<T>(exchange: () => Promise<T>): Promise<T>;
}

/**
 * Why a read claims the gate: `routine` (a watcher, the follower), `owed` (a webhook's read made later,
 * once the gate is open), `webhook` (a webhook just received: it may pass a routine hold). Owed and
 * webhook reads hold the gate against webhooks too.
 */
export type GateClaim = 'routine' | 'owed' | 'webhook';

/**
 * At most one upstream read per payment per interval for each kind of reason, however many browsers
 * watch it and webhooks name it; a refused claim says when the gate opens again. A read the payment
 * service's webhook asks for may pass a gate a watcher's or the follower's read holds, once: the
 * webhook says the status has changed since, and the customer waits for it.
 */
export interface ReadGate {
  tryClaim(transactionId: string, intervalMs: number, claim?: GateClaim): Promise<Grant>;
  /** Opens the gate again: the claim made no read (the budget had no room). */
  release(transactionId: string): Promise<void>;
}

export type StatusListener = (view: PaymentStatusView) => void;

export interface StatusBus {
  publish(view: PaymentStatusView): Promise<void>;
  /** Listens for one payment's changes; the returned function stops listening. */
  subscribe(transactionId: string, listener: StatusListener): () => void;
  /** Listens for every payment's changes (the operator stream). */
  subscribeAll(listener: StatusListener): () => void;
  /** Called when changes may have been missed (the bus reconnected): listeners read the store again. */
  onResync(listener: () => void): () => void;
}

/**
 * That a record changed, for every instance's listeners; the record itself is read from the store.
 * Listeners are also called after a reconnect, when changes may have been missed.
 */
export interface ChangeSignal {
  publish(id: string): Promise<void>;
  subscribe(id: string, listener: () => void): () => void;
}

export interface Coordination {
  tokenBudget: RateBudget;
  paymentBudget: RateBudget;
  tokens: TokenStore;
  readGate: ReadGate;
  bus: StatusBus;
  /** Purchases of the on-ramp that changed: their customers' streams read them again. */
  purchaseChanges: ChangeSignal;
  /** Payment links whose uses or state changed (by code): counters following one read it again. */
  linkChanges: ChangeSignal;
  close(): Promise<void>;
}

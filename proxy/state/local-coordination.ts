import type {
  ChangeSignal,
  Coordination,
  CachedToken,
  RateBudget,
  GateClaim,
  Grant,
  ReadGate,
  StatusBus,
  StatusListener,
  TokenStore,
} from './coordination.ts';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';

/** A sliding-window budget in this process's memory. */
export class LocalBudget implements RateBudget {
  private taken: number[] = [];
  private pausedUntil = 0;

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
  ) {}

  async tryTake(reserve = 0): Promise<Grant> {
    const now = Date.now();
    if (now < this.pausedUntil) return { ok: false, retryInMs: this.pausedUntil - now };
    this.taken = this.taken.filter((at) => at > now - this.windowMs);
    const allowed = Math.max(0, this.limit - reserve);
    if (this.taken.length < allowed) {
      this.taken.push(now);
      return { ok: true };
    }
    const oldest = this.taken[this.taken.length - allowed] ?? this.taken[0] ?? now;
    return { ok: false, retryInMs: Math.max(1, oldest + this.windowMs - now) };
  }

  async pause(ms: number): Promise<void> {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  async used(): Promise<number> {
    const now = Date.now();
    return this.taken.filter((at) => at > now - this.windowMs).length;
  }
}

export class LocalTokenStore implements TokenStore {
  private token: CachedToken | undefined;
  private inFlight: Promise<unknown> | undefined;

  async get(): Promise<CachedToken | undefined> {
    return this.token;
  }

  async set(token: CachedToken): Promise<void> {
    this.token = token;
  }

  async clear(accessToken: string): Promise<void> {
    if (this.token?.accessToken === accessToken) this.token = undefined;
  }

  async exclusive<T>(exchange: () => Promise<T>): Promise<T> {
    // Callers arriving during an exchange share its outcome, failure included.
    this.inFlight ??= exchange().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight as Promise<T>;
  }
}

export class LocalReadGate implements ReadGate {
  private readonly lastRead = new Map<string, { at: number; owed: boolean }>();

  async tryClaim(transactionId: string, intervalMs: number, claim: GateClaim = 'routine'): Promise<Grant> {
    const now = Date.now();
    const last = this.lastRead.get(transactionId);
    if (last !== undefined && now - last.at < intervalMs && !(claim === 'webhook' && !last.owed))
      return { ok: false, retryInMs: last.at + intervalMs - now };
    this.lastRead.set(transactionId, { at: now, owed: claim !== 'routine' });
    if (this.lastRead.size > 100_000) this.prune(now);
    return { ok: true };
  }

  async release(transactionId: string): Promise<void> {
    this.lastRead.delete(transactionId);
  }

  private prune(now: number): void {
    for (const [id, { at }] of this.lastRead) if (now - at > 3_600_000) this.lastRead.delete(id);
  }
}

/** Listeners by id, within this process. */
class Listeners<Args extends unknown[]> {
  private readonly byId = new Map<string, Set<(...args: Args) => void>>();

  deliver(id: string, ...args: Args): void {
    for (const listener of this.byId.get(id) ?? []) listener(...args);
  }

  /** Every listener: changes may have been missed (a bus that reconnected). */
  deliverAll(...args: Args): void {
    for (const listeners of this.byId.values()) for (const listener of listeners) listener(...args);
  }

  subscribe(id: string, listener: (...args: Args) => void): () => void {
    let listeners = this.byId.get(id);
    if (!listeners) this.byId.set(id, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.byId.delete(id);
    };
  }
}

export class LocalStatusBus implements StatusBus {
  private readonly byPayment = new Listeners<[PaymentStatusView]>();
  private readonly everything = new Set<StatusListener>();

  async publish(view: PaymentStatusView): Promise<void> {
    this.deliver(view);
  }

  /** Hands a change to this process's listeners (also used by buses that receive from elsewhere). */
  deliver(view: PaymentStatusView): void {
    this.byPayment.deliver(view.transactionId, view);
    for (const listener of this.everything) listener(view);
  }

  subscribe(transactionId: string, listener: StatusListener): () => void {
    return this.byPayment.subscribe(transactionId, listener);
  }

  subscribeAll(listener: StatusListener): () => void {
    this.everything.add(listener);
    return () => this.everything.delete(listener);
  }

  /** Nothing is ever missed within one process. */
  onResync(_listener: () => void): () => void {
    return () => undefined;
  }
}

/** Changes within one process: listeners by id. */
export class LocalChangeSignal extends Listeners<[]> implements ChangeSignal {
  async publish(id: string): Promise<void> {
    this.deliver(id);
  }
}

/** Upstream windows are 60 s; ours is a second longer so clock skew cannot push us over. */
export const BUDGET_WINDOW_MS = 61_000;

/** One process's coordination; `paymentsPerMinute` is the payment service's quota (100 unless raised). */
export function localCoordination(paymentsPerMinute = 100): Coordination & { bus: LocalStatusBus } {
  return {
    tokenBudget: new LocalBudget(10, BUDGET_WINDOW_MS),
    paymentBudget: new LocalBudget(paymentsPerMinute, BUDGET_WINDOW_MS),
    tokens: new LocalTokenStore(),
    readGate: new LocalReadGate(),
    bus: new LocalStatusBus(),
    purchaseChanges: new LocalChangeSignal(),
    linkChanges: new LocalChangeSignal(),
    close: async () => undefined,
  };
}

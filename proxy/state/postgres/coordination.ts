import { randomUUID } from 'node:crypto';
import type { CachedToken, Coordination, GateClaim, Grant, RateBudget, ReadGate, TokenStore } from '../coordination.ts';
import { BUDGET_WINDOW_MS } from '../local-coordination.ts';
import type { Sql } from '../sql/database.ts';
import { FleetChangeSignal, FleetStatusBus, underLease } from '../fleet-coordination.ts';
import { notifyChannel, type Listener } from './notifications.ts';

/** A per-minute budget counted across the fleet on the database's clock (`kassa_budget_take`). */
class PostgresBudget implements RateBudget {
  constructor(
    private readonly sql: Sql,
    private readonly name: string,
    readonly limit: number,
  ) {}

  async tryTake(reserve = 0): Promise<Grant> {
    const { wait } = (await this.sql.row<{ wait: number }>('SELECT kassa_budget_take(?, ?, ?, ?) AS wait', [
      this.name,
      BUDGET_WINDOW_MS,
      this.limit,
      reserve,
    ]))!;
    return wait === 0 ? { ok: true } : { ok: false, retryInMs: wait };
  }

  async pause(ms: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO budget_pauses (budget, paused_until) VALUES (?, kassa_clock_ms() + ?)
         ON CONFLICT (budget) DO UPDATE SET paused_until = greatest(budget_pauses.paused_until, excluded.paused_until)`,
      [this.name, Math.max(1, Math.round(ms))],
    );
  }

  async used(): Promise<number> {
    const row = await this.sql.row<{ used: number }>(
      'SELECT count(*) AS used FROM budget_takes WHERE budget = ? AND taken_at > kassa_clock_ms() - ?',
      [this.name, BUDGET_WINDOW_MS],
    );
    return row!.used;
  }
}

/**
 * One access token for the fleet, and one exchange at a time across it: a lease row with an expiry on
 * the database's clock (an instance that dies mid-exchange cannot hold it forever). Whoever takes the
 * lease next looks at the shared token first (TokenManager does), so a fleet of waiters makes one
 * exchange, not one each.
 */
class PostgresTokenStore implements TokenStore {
  private inFlight: Promise<unknown> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly name: string,
  ) {}

  async get(): Promise<CachedToken | undefined> {
    return (await this.sql.row<{ token: CachedToken }>('SELECT token FROM access_tokens WHERE name = ?', [this.name]))
      ?.token;
  }

  async set(token: CachedToken): Promise<void> {
    await this.sql.run(
      `INSERT INTO access_tokens (name, token, refresh_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET token = excluded.token, refresh_at = excluded.refresh_at`,
      [this.name, JSON.stringify(token), token.refreshAt],
    );
  }

  async clear(accessToken: string): Promise<void> {
    await this.sql.run("DELETE FROM access_tokens WHERE name = ? AND token ->> 'accessToken' = ?", [
      this.name,
      accessToken,
    ]);
  }

  exclusive<T>(exchange: () => Promise<T>): Promise<T> {
    const lease = `${this.name}:exchange`;
    const holder = randomUUID();
    // Within this instance, callers share one turn; across the fleet, turns take the lease.
    this.inFlight ??= underLease(
      {
        take: async (ms) =>
          (await this.sql.run(
            `INSERT INTO leases (name, holder, until) VALUES (?, ?, kassa_clock_ms() + ?)
               ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                 WHERE leases.until <= kassa_clock_ms()`,
            [lease, holder, ms],
          )) === 1,
        release: () => this.sql.run('DELETE FROM leases WHERE name = ? AND holder = ?', [lease, holder]),
      },
      exchange,
    ).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight as Promise<T>;
  }
}

/** Gate rows older than this are forgotten, now and then, by whichever instance claims. */
const GATE_KEPT_MS = 3_600_000;

/** At most one re-read per payment per interval, fleet-wide: a row holding when the next may be made. */
class PostgresReadGate implements ReadGate {
  private claims = 0;

  constructor(private readonly sql: Sql) {}

  async tryClaim(transactionId: string, intervalMs: number, claim: GateClaim = 'routine'): Promise<Grant> {
    if (++this.claims % 10_000 === 0)
      await this.sql.run('DELETE FROM read_gate WHERE until < kassa_clock_ms() - ?', [GATE_KEPT_MS]);
    // The outer SELECT sees the row as it was before the claim: when the claim fails, how long it holds.
    const row = await this.sql.row<{ claimed: string; wait_ms: string | null }>(
      `WITH claim AS (
         INSERT INTO read_gate (transaction_id, until, owed) VALUES (?, kassa_clock_ms() + ?, ?)
           ON CONFLICT (transaction_id) DO UPDATE SET until = excluded.until, owed = excluded.owed
           WHERE read_gate.until <= kassa_clock_ms() OR (? AND NOT read_gate.owed)
           RETURNING 1
       )
       SELECT (SELECT count(*) FROM claim) AS claimed,
              (SELECT until - kassa_clock_ms() FROM read_gate WHERE transaction_id = ?) AS wait_ms`,
      [transactionId, Math.max(1, Math.round(intervalMs)), claim !== 'routine', claim === 'webhook', transactionId],
    );
    return Number(row!.claimed) === 1 ? { ok: true } : { ok: false, retryInMs: Math.max(1, Number(row!.wait_ms ?? 1)) };
  }

  async release(transactionId: string): Promise<void> {
    await this.sql.run('DELETE FROM read_gate WHERE transaction_id = ?', [transactionId]);
  }
}

/** The fleet's shared budgets, token, read gate and notifications, all in the database. */
export function postgresCoordination(sql: Sql, listener: Listener, channelPrefix: string): Omit<Coordination, 'close'> {
  return {
    tokenBudget: new PostgresBudget(sql, 'token', 10),
    paymentBudget: new PostgresBudget(sql, 'payments', 100),
    tokens: new PostgresTokenStore(sql, 'pay'),
    readGate: new PostgresReadGate(sql),
    bus: new FleetStatusBus(notifyChannel(sql, `${channelPrefix}status`, listener)),
    purchaseChanges: new FleetChangeSignal(notifyChannel(sql, `${channelPrefix}purchase-changes`, listener)),
    linkChanges: new FleetChangeSignal(notifyChannel(sql, `${channelPrefix}link-changes`, listener)),
  };
}

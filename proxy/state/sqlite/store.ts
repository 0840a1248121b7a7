import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { withDiskFaults } from './faults.ts';
import { lockStoreFile } from './lock.ts';
import { MIGRATIONS } from './migrations.ts';
import { StoreOpenError } from '../store-open-error.ts';
import type { PaymentEventRule } from '../outbox.ts';
import { insertEvents, SqliteOutbox } from './outbox.ts';
import { SqliteApprovals } from './approvals.ts';
import { SqliteAudit } from './audit.ts';
import { SqliteDestinations } from './destinations.ts';
import { SqliteMerchantKeys } from './merchant-keys.ts';
import { SqliteOperators } from './operators.ts';
import { SqlitePurchases } from './purchases.ts';
import { SqliteReconciliation } from './reconciliation.ts';
import { toAttempt, toCheckout, toPayment, type Row } from '../sql-rows.ts';
import {
  decideAttempt,
  decodeCursor,
  encodeCursor,
  mergeUpdate,
  type Attempt,
  type BeginAttempt,
  type Checkout,
  type CheckoutClaim,
  type CheckoutKey,
  CHECKOUT_KEY_KEPT_MS,
  type Payment,
  PENDING_AGE_BUCKETS,
  type PaymentPage,
  type PaymentSearch,
  type PaymentStats,
  type PaymentUpdate,
  type Store,
} from '../store.ts';

/**
 * The embedded store: one SQLite file in WAL mode, migrated at open, used by one process at a time
 * (lock.ts). better-sqlite3 is synchronous, so each method is one transaction that nothing
 * else in the process can interleave with. A full disk, a read-only file or an I/O error makes a
 * method fail with StoreUnavailableError (503), and a file that cannot be opened or migrated a
 * StoreOpenError that names it.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly lock: Database.Database | undefined;
  /** Preparing is costlier than running: each statement is prepared once and kept. */
  private readonly statements = new Map<string, Database.Statement>();
  readonly outbox: SqliteOutbox;
  readonly destinations: SqliteDestinations;
  readonly merchantKeys: SqliteMerchantKeys;
  readonly reconciliation: SqliteReconciliation;
  readonly purchases: SqlitePurchases;
  readonly operators: SqliteOperators;
  readonly approvals: SqliteApprovals;
  readonly audit: SqliteAudit;

  /**
   * `lock: false` is for `kassa-proxy operators` and `audit`, which make short transactions on the file
   * beside a running proxy (whose one-process lock is on `<file>.lock`, not on the file itself).
   */
  constructor(path: string, options: { lock?: boolean } = {}) {
    let db: Database.Database | undefined;
    try {
      if (path !== ':memory:') {
        mkdirSync(dirname(path), { recursive: true });
        if (options.lock !== false) this.lock = lockStoreFile(path);
      }
      db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db);
    } catch (error) {
      db?.close();
      this.lock?.close();
      if (error instanceof StoreOpenError) throw error;
      throw new StoreOpenError('KASSA_DB', path, `cannot open the store: ${(error as Error).message}`);
    }
    this.db = db;
    this.outbox = withDiskFaults(new SqliteOutbox(this.db, (text) => this.sql(text)));
    this.destinations = withDiskFaults(new SqliteDestinations(this.db, (text) => this.sql(text)));
    this.merchantKeys = withDiskFaults(new SqliteMerchantKeys((text) => this.sql(text)));
    this.reconciliation = withDiskFaults(new SqliteReconciliation((text) => this.sql(text)));
    this.purchases = withDiskFaults(new SqlitePurchases(this.db, (text) => this.sql(text)));
    this.operators = withDiskFaults(new SqliteOperators(this.db, (text) => this.sql(text)));
    this.approvals = withDiskFaults(new SqliteApprovals(this.db, (text) => this.sql(text)));
    this.audit = withDiskFaults(new SqliteAudit(this.db, (text) => this.sql(text)));
    // The store itself answers through the same guard (a constructor may hand back another object).
    return withDiskFaults(this);
  }

  async insertCheckout(checkout: Checkout, key?: CheckoutKey): Promise<CheckoutClaim> {
    return this.db
      .transaction((): CheckoutClaim => {
        if (key) {
          const seen = this.sql(
            'SELECT checkout_id, fingerprint FROM checkout_keys WHERE idempotency_key = ? AND created_at > ?',
          ).get(key.idempotencyKey, checkout.createdAt - CHECKOUT_KEY_KEPT_MS) as Row | undefined;
          if (seen)
            return { created: false, checkoutId: seen.checkout_id as string, fingerprint: seen.fingerprint as string };
          this.sql(
            `INSERT OR REPLACE INTO checkout_keys (idempotency_key, fingerprint, checkout_id, created_at) VALUES (?, ?, ?, ?)`,
          ).run(key.idempotencyKey, key.fingerprint, checkout.checkoutId, checkout.createdAt);
        }
        this.sql(
          `INSERT INTO checkouts (checkout_id, amount, currency_code, reference, metadata, created_at, expires_at, current_attempt)
             VALUES (@checkoutId, @amount, @currencyCode, @reference, @metadata, @createdAt, @expiresAt, @currentAttempt)`,
        ).run(checkout);
        return { created: true };
      })
      .immediate();
  }

  async getCheckout(checkoutId: string): Promise<Checkout | undefined> {
    return this.checkout(checkoutId);
  }

  async beginAttempt(input: {
    idempotencyKey: string;
    fingerprint: string;
    checkoutId: string | null;
    statusToken: string;
    now: number;
    staleAfterMs: number;
  }): Promise<BeginAttempt> {
    return this.db
      .transaction((): BeginAttempt => {
        const holder = input.checkoutId
          ? (this.sql('SELECT current_attempt FROM checkouts WHERE checkout_id = ?').get(input.checkoutId) as
              Row | undefined)
          : undefined;
        const current = holder?.current_attempt ? this.attempt(holder.current_attempt as string) : undefined;
        const payment = current?.transactionId
          ? (this.sql('SELECT status FROM payments WHERE transaction_id = ?').get(current.transactionId) as {
              status: string;
            })
          : undefined;
        const decision = decideAttempt({
          existing: this.attempt(input.idempotencyKey),
          current,
          currentStatus: payment?.status,
          now: input.now,
          staleAfterMs: input.staleAfterMs,
        });
        if (decision.outcome !== 'started') return decision;
        if (decision.discardCurrent)
          this.sql('DELETE FROM attempts WHERE idempotency_key = ?').run(current!.idempotencyKey);
        if (decision.discardExisting) {
          this.sql('DELETE FROM attempts WHERE idempotency_key = ?').run(input.idempotencyKey);
          this.sql('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = ?').run(input.idempotencyKey);
        }
        this.sql(
          `INSERT INTO attempts (idempotency_key, fingerprint, checkout_id, status_token, state, transaction_id, created_at)
             VALUES (?, ?, ?, ?, 'pending', NULL, ?)`,
        ).run(input.idempotencyKey, input.fingerprint, input.checkoutId, input.statusToken, input.now);
        if (input.checkoutId)
          this.sql('UPDATE checkouts SET current_attempt = ? WHERE checkout_id = ?').run(
            input.idempotencyKey,
            input.checkoutId,
          );
        return { outcome: 'started' };
      })
      .immediate();
  }

  async getAttempt(idempotencyKey: string): Promise<Attempt | undefined> {
    return this.attempt(idempotencyKey);
  }

  async abandonAttempt(idempotencyKey: string): Promise<void> {
    this.db.transaction(() => {
      this.sql("DELETE FROM attempts WHERE idempotency_key = ? AND state = 'pending'").run(idempotencyKey);
      this.sql('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = ?').run(idempotencyKey);
    })();
  }

  async recordPayment(payment: Payment): Promise<void> {
    this.db.transaction(() => {
      this.sql(
        `INSERT INTO payments (transaction_id, status_token, idempotency_key, checkout_id, amount, currency_code, reference, environment, flow_url,
             status, network_status, network_payment_id, payment_rail, provider_id, end_to_end_id, return_url, initiated_at, updated_at, completed_at, created_at, last_checked_at, revision)
           VALUES (@transactionId, @statusToken, @idempotencyKey, @checkoutId, @amount, @currencyCode, @reference, @environment, @flowUrl,
             @status, @networkStatus, @networkPaymentId, @paymentRail, @providerId, @endToEndId, @returnUrl, @initiatedAt, @updatedAt, @completedAt, @createdAt, @lastCheckedAt, @revision)`,
      ).run(payment);
      this.sql("UPDATE attempts SET state = 'succeeded', transaction_id = ? WHERE idempotency_key = ?").run(
        payment.transactionId,
        payment.idempotencyKey,
      );
    })();
  }

  async paymentByToken(statusToken: string): Promise<Payment | undefined> {
    const row = this.sql('SELECT * FROM payments WHERE status_token = ?').get(statusToken) as Row | undefined;
    return row && toPayment(row);
  }

  async paymentById(transactionId: string): Promise<Payment | undefined> {
    const row = this.sql('SELECT * FROM payments WHERE transaction_id = ?').get(transactionId) as Row | undefined;
    return row && toPayment(row);
  }

  async applyUpdate(
    transactionId: string,
    update: PaymentUpdate,
    checkedAt: number,
    rule?: PaymentEventRule,
  ): Promise<Payment | undefined> {
    return this.db
      .transaction(() => {
        const row = this.sql('SELECT * FROM payments WHERE transaction_id = ?').get(transactionId) as Row | undefined;
        if (!row) return undefined;
        const previous = toPayment(row);
        const next = mergeUpdate(previous, update);
        if (!next) {
          this.sql('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?').run(checkedAt, transactionId);
          return undefined;
        }
        next.lastCheckedAt = checkedAt;
        this.sql(
          `UPDATE payments SET status = @status, network_status = @networkStatus, network_payment_id = @networkPaymentId, payment_rail = @paymentRail,
               provider_id = @providerId, end_to_end_id = @endToEndId, updated_at = @updatedAt, completed_at = @completedAt, last_checked_at = @lastCheckedAt,
               revision = @revision
             WHERE transaction_id = @transactionId`,
        ).run(next);
        if (rule) {
          const checkout = next.checkoutId ? this.checkout(next.checkoutId) : undefined;
          insertEvents((text) => this.sql(text), rule(previous, next, checkout));
        }
        return next;
      })
      .immediate();
  }

  async markChecked(transactionId: string, checkedAt: number): Promise<void> {
    this.sql('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?').run(checkedAt, transactionId);
  }

  async listPayments(query: PaymentSearch): Promise<PaymentPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const filter = (clause: string, value: unknown) => {
      if (value === undefined || value === '') return;
      where.push(clause);
      params.push(value);
    };
    filter('status = ?', query.status);
    filter('checkout_id = ?', query.checkoutId);
    filter('reference = ?', query.reference);
    filter('created_at >= ?', query.from);
    filter('created_at < ?', query.to);
    // Amounts have at most two decimals: as REAL they compare exactly as the decimals do.
    filter('CAST(amount AS REAL) >= CAST(? AS REAL)', query.minAmount);
    filter('CAST(amount AS REAL) <= CAST(? AS REAL)', query.maxAmount);
    if (query.cursor) {
      const after = decodeCursor(query.cursor);
      where.push('(created_at, transaction_id) < (?, ?)');
      params.push(after.createdAt, after.transactionId);
    }
    const rows = this.sql(
      `SELECT * FROM payments ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, transaction_id DESC LIMIT ?`,
    ).all(...params, query.limit + 1) as Row[];
    const payments = rows.slice(0, query.limit).map(toPayment);
    return { payments, nextCursor: rows.length > query.limit ? encodeCursor(payments[payments.length - 1]!) : null };
  }

  async paymentStats(now: number): Promise<PaymentStats> {
    const byStatus = Object.fromEntries(
      (
        this.sql('SELECT status, COUNT(*) AS n FROM payments GROUP BY status').all() as Array<{
          status: string;
          n: number;
        }>
      ).map((row) => [row.status, row.n]),
    );
    const pendingByAge = Object.fromEntries(
      PENDING_AGE_BUCKETS.map(({ label }) => [label, 0]),
    ) as PaymentStats['pendingByAge'];
    let lower = 0;
    for (const { label, below } of PENDING_AGE_BUCKETS) {
      // Ages in [lower, below): created in (now - below, now - lower].
      const row = this.sql(
        "SELECT COUNT(*) AS n FROM payments WHERE status NOT IN ('COMPLETED', 'FAILED') AND created_at <= ? AND created_at > ?",
      ).get(now - lower, below === Infinity ? -1 : now - below) as { n: number };
      pendingByAge[label] = row.n;
      lower = below;
    }
    return { byStatus, pendingByAge };
  }

  async pendingPayments(limit: number): Promise<Payment[]> {
    const rows = this.sql(
      "SELECT * FROM payments WHERE status NOT IN ('COMPLETED', 'FAILED') ORDER BY created_at LIMIT ?",
    ).all(limit) as Row[];
    return rows.map(toPayment);
  }

  async recordWebhook(event: {
    dedupeKey: string;
    transactionId: string | null;
    receivedAt: number;
    body: string;
  }): Promise<boolean> {
    const result = this.sql(
      'INSERT OR IGNORE INTO webhook_events (dedupe_key, transaction_id, received_at, body) VALUES (?, ?, ?, ?)',
    ).run(event.dedupeKey, event.transactionId, event.receivedAt, event.body);
    return result.changes === 1;
  }

  /** A write, as payments need: a full disk or a read-only file would still answer a read. */
  async ping(): Promise<void> {
    this.sql('INSERT INTO heartbeat (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at').run(
      Date.now(),
    );
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
    if (this.lock?.open) this.lock.close();
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  private checkout(checkoutId: string): Checkout | undefined {
    const row = this.sql('SELECT * FROM checkouts WHERE checkout_id = ?').get(checkoutId) as Row | undefined;
    return row && toCheckout(row);
  }

  private attempt(idempotencyKey: string): Attempt | undefined {
    const row = this.sql('SELECT * FROM attempts WHERE idempotency_key = ?').get(idempotencyKey) as Row | undefined;
    return row && toAttempt(row);
  }
}

function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length)
    throw new Error(`the database at version ${current} is newer than this Kassa (${MIGRATIONS.length})`);
  for (const [index, sql] of MIGRATIONS.entries()) {
    if (index < current) continue;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${index + 1}`);
    })();
  }
}

import type { PaymentEventRule } from '../outbox.ts';
import { toAttempt, toCheckout, toPayment } from '../sql-rows.ts';
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
  StoreUnavailableError,
} from '../store.ts';
import type { Database, Sql } from './database.ts';
import { insertEvents, PostgresOutbox } from './outbox.ts';
import { PostgresPurchases } from './purchases.ts';
import { notOnPostgresYet } from './operators-pending.ts';
import type { OperatorStore } from '../operators.ts';
import type { ApprovalStore } from '../approvals.ts';
import type { AuditStore } from '../audit.ts';
import { PostgresReconciliation } from './reconciliation.ts';

/** Serialises the transactions on one idempotency key (an advisory lock held until commit). */
const lockKey = (tx: Sql, namespace: string, key: string) =>
  tx.run('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`kassa:${namespace}:${key}`]);

const PAYMENT_COLUMNS = `transaction_id, status_token, idempotency_key, checkout_id, amount, currency_code, reference, environment,
  flow_url, status, network_status, network_payment_id, payment_rail, provider_id, end_to_end_id, return_url, initiated_at,
  updated_at, completed_at, created_at, last_checked_at, revision`;

const INSERT_PAYMENT = `INSERT INTO payments (${PAYMENT_COLUMNS}) VALUES (${PAYMENT_COLUMNS.split(',')
  .map((_, i) => `$${i + 1}`)
  .join(', ')})`;

const paymentValues = (p: Payment) => [
  p.transactionId,
  p.statusToken,
  p.idempotencyKey,
  p.checkoutId,
  p.amount,
  p.currencyCode,
  p.reference,
  p.environment,
  p.flowUrl,
  p.status,
  p.networkStatus,
  p.networkPaymentId,
  p.paymentRail,
  p.providerId,
  p.endToEndId,
  p.returnUrl,
  p.initiatedAt,
  p.updatedAt,
  p.completedAt,
  p.createdAt,
  p.lastCheckedAt,
  p.revision,
];

/**
 * The store of a fleet on PostgreSQL: every step the SQLite store takes in one transaction is one
 * transaction here, with the row locks (`FOR UPDATE`) and advisory locks that make it atomic against
 * the other instances, and the same rules (decideAttempt, mergeUpdate) decide it.
 */
export class PostgresStore implements Store {
  readonly outbox: PostgresOutbox;
  readonly reconciliation: PostgresReconciliation;
  readonly purchases: PostgresPurchases;
  readonly operators = notOnPostgresYet<OperatorStore>();
  readonly approvals = notOnPostgresYet<ApprovalStore>();
  readonly audit = notOnPostgresYet<AuditStore>();

  constructor(private readonly db: Database) {
    this.outbox = new PostgresOutbox(db);
    this.reconciliation = new PostgresReconciliation(db);
    this.purchases = new PostgresPurchases(db);
  }

  insertCheckout(checkout: Checkout, key?: CheckoutKey): Promise<CheckoutClaim> {
    return this.db.transaction(async (tx): Promise<CheckoutClaim> => {
      if (key) {
        // A key seen within its lifetime names its checkout; an older one is taken over. Racing
        // requests under one key wait for each other on its row.
        const claimed = await tx.run(
          `INSERT INTO checkout_keys (idempotency_key, fingerprint, checkout_id, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (idempotency_key) DO UPDATE
               SET fingerprint = excluded.fingerprint, checkout_id = excluded.checkout_id, created_at = excluded.created_at
               WHERE checkout_keys.created_at <= $5`,
          [
            key.idempotencyKey,
            key.fingerprint,
            checkout.checkoutId,
            checkout.createdAt,
            checkout.createdAt - CHECKOUT_KEY_KEPT_MS,
          ],
        );
        if (claimed === 0) {
          const seen = (await tx.row<{ checkout_id: string; fingerprint: string }>(
            'SELECT checkout_id, fingerprint FROM checkout_keys WHERE idempotency_key = $1',
            [key.idempotencyKey],
          ))!;
          return { created: false, checkoutId: seen.checkout_id, fingerprint: seen.fingerprint };
        }
      }
      await tx.run(
        `INSERT INTO checkouts (checkout_id, amount, currency_code, reference, metadata, created_at, expires_at, current_attempt)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          checkout.checkoutId,
          checkout.amount,
          checkout.currencyCode,
          checkout.reference,
          checkout.metadata,
          checkout.createdAt,
          checkout.expiresAt,
          checkout.currentAttempt,
        ],
      );
      return { created: true };
    });
  }

  async getCheckout(checkoutId: string): Promise<Checkout | undefined> {
    return checkoutOf(this.db, checkoutId);
  }

  beginAttempt(input: {
    idempotencyKey: string;
    fingerprint: string;
    checkoutId: string | null;
    statusToken: string;
    now: number;
    staleAfterMs: number;
  }): Promise<BeginAttempt> {
    return this.db.transaction(async (tx): Promise<BeginAttempt> => {
      // The checkout's row first, then the key: every attempt on a checkout waits for the one before.
      const holder = input.checkoutId
        ? await tx.row<{ current_attempt: string | null }>(
            'SELECT current_attempt FROM checkouts WHERE checkout_id = $1 FOR UPDATE',
            [input.checkoutId],
          )
        : undefined;
      await lockKey(tx, 'attempt', input.idempotencyKey);
      const current = holder?.current_attempt ? await attemptOf(tx, holder.current_attempt, true) : undefined;
      const payment = current?.transactionId
        ? await tx.row<{ status: string }>('SELECT status FROM payments WHERE transaction_id = $1', [
            current.transactionId,
          ])
        : undefined;
      const decision = decideAttempt({
        existing: await attemptOf(tx, input.idempotencyKey, true),
        current,
        currentStatus: payment?.status,
        now: input.now,
        staleAfterMs: input.staleAfterMs,
      });
      if (decision.outcome !== 'started') return decision;
      if (decision.discardCurrent)
        await tx.run('DELETE FROM attempts WHERE idempotency_key = $1', [current!.idempotencyKey]);
      if (decision.discardExisting) {
        await tx.run('DELETE FROM attempts WHERE idempotency_key = $1', [input.idempotencyKey]);
        await tx.run('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = $1', [input.idempotencyKey]);
      }
      await tx.run(
        `INSERT INTO attempts (idempotency_key, fingerprint, checkout_id, status_token, state, transaction_id, created_at)
           VALUES ($1, $2, $3, $4, 'pending', NULL, $5)`,
        [input.idempotencyKey, input.fingerprint, input.checkoutId, input.statusToken, input.now],
      );
      if (input.checkoutId)
        await tx.run('UPDATE checkouts SET current_attempt = $1 WHERE checkout_id = $2', [
          input.idempotencyKey,
          input.checkoutId,
        ]);
      return { outcome: 'started' };
    });
  }

  getAttempt(idempotencyKey: string): Promise<Attempt | undefined> {
    return attemptOf(this.db, idempotencyKey, false);
  }

  async abandonAttempt(idempotencyKey: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // The checkout's row before the attempt's, in the order beginAttempt takes them.
      await tx.run('SELECT 1 FROM checkouts WHERE current_attempt = $1 FOR UPDATE', [idempotencyKey]);
      await tx.run("DELETE FROM attempts WHERE idempotency_key = $1 AND state = 'pending'", [idempotencyKey]);
      await tx.run('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = $1', [idempotencyKey]);
    });
  }

  async recordPayment(payment: Payment): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(INSERT_PAYMENT, paymentValues(payment));
      await tx.run("UPDATE attempts SET state = 'succeeded', transaction_id = $1 WHERE idempotency_key = $2", [
        payment.transactionId,
        payment.idempotencyKey,
      ]);
    });
  }

  async paymentByToken(statusToken: string): Promise<Payment | undefined> {
    const row = await this.db.row('SELECT * FROM payments WHERE status_token = $1', [statusToken]);
    return row && toPayment(row);
  }

  async paymentById(transactionId: string): Promise<Payment | undefined> {
    const row = await this.db.row('SELECT * FROM payments WHERE transaction_id = $1', [transactionId]);
    return row && toPayment(row);
  }

  applyUpdate(
    transactionId: string,
    update: PaymentUpdate,
    checkedAt: number,
    rule?: PaymentEventRule,
  ): Promise<Payment | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await tx.row('SELECT * FROM payments WHERE transaction_id = $1 FOR UPDATE', [transactionId]);
      if (!row) return undefined;
      const previous = toPayment(row);
      const next = mergeUpdate(previous, update);
      if (!next) {
        await tx.run('UPDATE payments SET last_checked_at = $1 WHERE transaction_id = $2', [checkedAt, transactionId]);
        return undefined;
      }
      next.lastCheckedAt = checkedAt;
      await tx.run(
        `UPDATE payments SET status = $1, network_status = $2, network_payment_id = $3, payment_rail = $4, provider_id = $5,
             end_to_end_id = $6, updated_at = $7, completed_at = $8, last_checked_at = $9, revision = $10
           WHERE transaction_id = $11`,
        [
          next.status,
          next.networkStatus,
          next.networkPaymentId,
          next.paymentRail,
          next.providerId,
          next.endToEndId,
          next.updatedAt,
          next.completedAt,
          next.lastCheckedAt,
          next.revision,
          transactionId,
        ],
      );
      if (rule) {
        const checkout = next.checkoutId ? await checkoutOf(tx, next.checkoutId) : undefined;
        await insertEvents(tx, rule(previous, next, checkout));
      }
      return next;
    });
  }

  async markChecked(transactionId: string, checkedAt: number): Promise<void> {
    await this.db.run('UPDATE payments SET last_checked_at = $1 WHERE transaction_id = $2', [checkedAt, transactionId]);
  }

  async listPayments(query: PaymentSearch): Promise<PaymentPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const filter = (clause: (at: string) => string, value: unknown) => {
      if (value === undefined || value === '') return;
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    filter((at) => `status = ${at}`, query.status);
    filter((at) => `checkout_id = ${at}`, query.checkoutId);
    filter((at) => `reference = ${at}`, query.reference);
    filter((at) => `created_at >= ${at}`, query.from);
    filter((at) => `created_at < ${at}`, query.to);
    filter((at) => `amount::numeric >= ${at}::numeric`, query.minAmount);
    filter((at) => `amount::numeric <= ${at}::numeric`, query.maxAmount);
    if (query.cursor) {
      const after = decodeCursor(query.cursor);
      params.push(after.createdAt, after.transactionId);
      where.push(`(created_at, transaction_id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(query.limit + 1);
    const rows = await this.db.rows(
      `SELECT * FROM payments ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, transaction_id DESC LIMIT $${params.length}`,
      params,
    );
    const payments = rows.slice(0, query.limit).map(toPayment);
    return { payments, nextCursor: rows.length > query.limit ? encodeCursor(payments[payments.length - 1]!) : null };
  }

  async paymentStats(now: number): Promise<PaymentStats> {
    const counts = await this.db.rows<{ status: string; n: number }>(
      'SELECT status, count(*) AS n FROM payments GROUP BY status',
    );
    // Ages in [lower, below): created in (now - below, now - lower], every bucket counted in one scan.
    const bounds: number[] = [];
    let lower = 0;
    for (const { below } of PENDING_AGE_BUCKETS) {
      bounds.push(now - lower, below === Infinity ? -1 : now - below);
      lower = below;
    }
    const buckets = PENDING_AGE_BUCKETS.map(
      (_, i) => `count(*) FILTER (WHERE created_at <= $${2 * i + 1} AND created_at > $${2 * i + 2}) AS b${i}`,
    );
    const ages = (await this.db.row<Record<string, number>>(
      `SELECT ${buckets.join(', ')} FROM payments WHERE status NOT IN ('COMPLETED', 'FAILED')`,
      bounds,
    ))!;
    return {
      byStatus: Object.fromEntries(counts.map((row) => [row.status, row.n])),
      pendingByAge: Object.fromEntries(
        PENDING_AGE_BUCKETS.map(({ label }, i) => [label, ages[`b${i}`] ?? 0]),
      ) as PaymentStats['pendingByAge'],
    };
  }

  async pendingPayments(limit: number): Promise<Payment[]> {
    const rows = await this.db.rows(
      "SELECT * FROM payments WHERE status NOT IN ('COMPLETED', 'FAILED') ORDER BY created_at LIMIT $1",
      [limit],
    );
    return rows.map(toPayment);
  }

  async recordWebhook(event: {
    dedupeKey: string;
    transactionId: string | null;
    receivedAt: number;
    body: string;
  }): Promise<boolean> {
    const inserted = await this.db.run(
      `INSERT INTO webhook_events (dedupe_key, transaction_id, received_at, body) VALUES ($1, $2, $3, $4)
         ON CONFLICT (dedupe_key) DO NOTHING`,
      [event.dedupeKey, event.transactionId, event.receivedAt, event.body],
    );
    return inserted === 1;
  }

  /** A standby answers reads but refuses every write: not ready (during a failover, before promotion). */
  async ping(): Promise<void> {
    const { standby } = (await this.db.row<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby'))!;
    if (standby) throw new StoreUnavailableError(new Error('the database is a read-only standby'));
    // A write, as payments need: a full disk or a read-only database would still answer a read.
    await this.db.run('INSERT INTO heartbeat (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at', [
      Date.now(),
    ]);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

async function checkoutOf(sql: Sql, checkoutId: string): Promise<Checkout | undefined> {
  const row = await sql.row('SELECT * FROM checkouts WHERE checkout_id = $1', [checkoutId]);
  return row && toCheckout(row);
}

async function attemptOf(sql: Sql, idempotencyKey: string, lock: boolean): Promise<Attempt | undefined> {
  const row = await sql.row(`SELECT * FROM attempts WHERE idempotency_key = $1${lock ? ' FOR UPDATE' : ''}`, [
    idempotencyKey,
  ]);
  return row && toAttempt(row);
}

import { pageAfter } from '../cursors.ts';
import type { PaymentEventRule } from '../outbox.ts';
import {
  decideAttempt,
  decodeCursor,
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
import { SqlApprovals } from './approvals.ts';
import { SqlAudit } from './audit.ts';
import type { Database } from './database.ts';
import { SqlDestinations } from './destinations.ts';
import { SqlLinks } from './links.ts';
import { SqlMerchantKeys } from './merchant-keys.ts';
import { SqlOperators } from './operators.ts';
import { insertEvents, SqlOutbox } from './outbox.ts';
import { SqlPurchases } from './purchases.ts';
import { SqlReconciliation } from './reconciliation.ts';
import { ATTEMPT, attemptOf, CHECKOUT, checkoutOf, Columns, NewestFirst, PAYMENT, paymentOf } from './rows.ts';

const OPEN = "status NOT IN ('COMPLETED', 'FAILED')";
/** The status read's: a statement's text is built once. */
const PAYMENT_BY_TOKEN = `SELECT ${PAYMENT.select} FROM payments WHERE status_token = ?`;
const PAYMENTS = new NewestFirst<Payment>(`SELECT ${PAYMENT.select} FROM payments`, 'transaction_id');
/** What an update writes. */
const CHANGED = new Columns<Payment>(`status networkStatus networkPaymentId paymentRail providerId endToEndId updatedAt
  completedAt lastCheckedAt revision`);

/**
 * The store on SQL, one implementation for SQLite (one process) and PostgreSQL (a fleet): every step
 * is one transaction, made atomic against other instances by the row locks (`FOR UPDATE`) and
 * advisory locks of the dialect, and decided by the rules every store shares (decideAttempt, mergeUpdate).
 */
export class SqlStore implements Store {
  readonly outbox: SqlOutbox;
  readonly destinations: SqlDestinations;
  readonly merchantKeys: SqlMerchantKeys;
  readonly links: SqlLinks;
  readonly reconciliation: SqlReconciliation;
  readonly purchases: SqlPurchases;
  readonly operators: SqlOperators;
  readonly approvals: SqlApprovals;
  readonly audit: SqlAudit;

  constructor(private readonly db: Database) {
    this.outbox = new SqlOutbox(db);
    this.destinations = new SqlDestinations(db);
    this.merchantKeys = new SqlMerchantKeys(db);
    this.links = new SqlLinks(db, this.outbox.routing);
    this.reconciliation = new SqlReconciliation(db);
    this.purchases = new SqlPurchases(db, this.outbox.routing);
    this.operators = new SqlOperators(db);
    this.approvals = new SqlApprovals(db);
    this.audit = new SqlAudit(db);
  }

  insertCheckout(checkout: Checkout, key?: CheckoutKey): Promise<CheckoutClaim> {
    return this.db.transaction(async (tx): Promise<CheckoutClaim> => {
      if (key) {
        // A key seen within its lifetime names its checkout; an older one is taken over. Racing
        // requests under one key wait for each other on its row.
        const claimed = await tx.run(
          `INSERT INTO checkout_keys (idempotency_key, fingerprint, checkout_id, created_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (idempotency_key) DO UPDATE
               SET fingerprint = excluded.fingerprint, checkout_id = excluded.checkout_id, created_at = excluded.created_at
               WHERE checkout_keys.created_at <= ?`,
          [
            key.idempotencyKey,
            key.fingerprint,
            checkout.checkoutId,
            checkout.createdAt,
            checkout.createdAt - CHECKOUT_KEY_KEPT_MS,
          ],
        );
        if (claimed === 0) {
          const seen = await tx.row<{ checkoutId: string; fingerprint: string }>(
            'SELECT checkout_id AS "checkoutId", fingerprint FROM checkout_keys WHERE idempotency_key = ?',
            [key.idempotencyKey],
          );
          return { created: false, ...seen! };
        }
      }
      await tx.run(`INSERT INTO checkouts (${CHECKOUT.names}) VALUES (${CHECKOUT.marks})`, CHECKOUT.values(checkout));
      return { created: true };
    });
  }

  getCheckout(checkoutId: string): Promise<Checkout | undefined> {
    return checkoutOf(this.db, checkoutId);
  }

  beginAttempt(input: Parameters<Store['beginAttempt']>[0]): Promise<BeginAttempt> {
    const { forUpdate } = this.db.dialect;
    return this.db.transaction(async (tx): Promise<BeginAttempt> => {
      // The checkout's row first, then the key: every attempt on a checkout waits for the one before.
      const holder = input.checkoutId
        ? await tx.row<{ current: string | null }>(
            `SELECT current_attempt AS current FROM checkouts WHERE checkout_id = ?${forUpdate}`,
            [input.checkoutId],
          )
        : undefined;
      await this.db.dialect.lock(tx, `attempt:${input.idempotencyKey}`);
      const current = holder?.current ? await attemptOf(tx, holder.current, forUpdate) : undefined;
      const payment = current?.transactionId
        ? await tx.row<{ status: string }>('SELECT status FROM payments WHERE transaction_id = ?', [
            current.transactionId,
          ])
        : undefined;
      const decision = decideAttempt({
        existing: await attemptOf(tx, input.idempotencyKey, forUpdate),
        current,
        currentStatus: payment?.status,
        now: input.now,
        staleAfterMs: input.staleAfterMs,
      });
      if (decision.outcome !== 'started') return decision;
      if (decision.discardCurrent)
        await tx.run('DELETE FROM attempts WHERE idempotency_key = ?', [current!.idempotencyKey]);
      if (decision.discardExisting) {
        await tx.run('DELETE FROM attempts WHERE idempotency_key = ?', [input.idempotencyKey]);
        await tx.run('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = ?', [input.idempotencyKey]);
      }
      const attempt: Attempt = { ...input, state: 'pending', transactionId: null, createdAt: input.now };
      await tx.run(`INSERT INTO attempts (${ATTEMPT.names}) VALUES (${ATTEMPT.marks})`, ATTEMPT.values(attempt));
      if (input.checkoutId)
        await tx.run('UPDATE checkouts SET current_attempt = ? WHERE checkout_id = ?', [
          input.idempotencyKey,
          input.checkoutId,
        ]);
      return { outcome: 'started' };
    });
  }

  getAttempt(idempotencyKey: string): Promise<Attempt | undefined> {
    return attemptOf(this.db, idempotencyKey);
  }

  async abandonAttempt(idempotencyKey: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // The checkout's row before the attempt's, in the order beginAttempt takes them.
      await tx.run(`SELECT 1 FROM checkouts WHERE current_attempt = ?${this.db.dialect.forUpdate}`, [idempotencyKey]);
      await tx.run("DELETE FROM attempts WHERE idempotency_key = ? AND state = 'pending'", [idempotencyKey]);
      await tx.run('UPDATE checkouts SET current_attempt = NULL WHERE current_attempt = ?', [idempotencyKey]);
    });
  }

  async recordPayment(payment: Payment): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(`INSERT INTO payments (${PAYMENT.names}) VALUES (${PAYMENT.marks})`, PAYMENT.values(payment));
      await tx.run("UPDATE attempts SET state = 'succeeded', transaction_id = ? WHERE idempotency_key = ?", [
        payment.transactionId,
        payment.idempotencyKey,
      ]);
    });
  }

  paymentByToken(statusToken: string): Promise<Payment | undefined> {
    return this.db.row<Payment>(PAYMENT_BY_TOKEN, [statusToken]);
  }

  paymentById(transactionId: string): Promise<Payment | undefined> {
    return paymentOf(this.db, transactionId);
  }

  applyUpdate(
    transactionId: string,
    update: PaymentUpdate,
    checkedAt: number,
    rule?: PaymentEventRule,
  ): Promise<Payment | undefined> {
    return this.db.transaction(async (tx) => {
      const previous = await paymentOf(tx, transactionId, this.db.dialect.forUpdate);
      if (!previous) return undefined;
      const next = mergeUpdate(previous, update);
      if (!next) {
        await tx.run('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?', [checkedAt, transactionId]);
        return undefined;
      }
      next.lastCheckedAt = checkedAt;
      await tx.run(`UPDATE payments SET ${CHANGED.assignments} WHERE transaction_id = ?`, [
        ...CHANGED.values(next),
        transactionId,
      ]);
      if (rule) {
        const checkout = next.checkoutId ? await checkoutOf(tx, next.checkoutId) : undefined;
        await insertEvents(tx, this.db.dialect, rule(previous, next, checkout), this.outbox.routing);
      }
      return next;
    });
  }

  async markChecked(transactionId: string, checkedAt: number): Promise<void> {
    await this.db.run('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?', [checkedAt, transactionId]);
  }

  async listPayments(query: PaymentSearch): Promise<PaymentPage> {
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const rows = await PAYMENTS.rows(this.db, after && [after.createdAt, after.transactionId], query.limit, {
      'status = ?': query.status,
      'checkout_id = ?': query.checkoutId,
      'reference = ?': query.reference,
      'created_at >= ?': query.from,
      'created_at < ?': query.to,
      'CAST(amount AS NUMERIC) >= CAST(? AS NUMERIC)': query.minAmount,
      'CAST(amount AS NUMERIC) <= CAST(? AS NUMERIC)': query.maxAmount,
    });
    const { items: payments, nextCursor } = pageAfter(rows, query.limit, false, (last) => [
      last.createdAt,
      last.transactionId,
    ]);
    return { payments, nextCursor };
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
      (_, i) => `count(*) FILTER (WHERE created_at <= ? AND created_at > ?) AS b${i}`,
    );
    const ages = (await this.db.row<Record<string, number>>(
      `SELECT ${buckets.join(', ')} FROM payments WHERE ${OPEN}`,
      bounds,
    ))!;
    return {
      byStatus: Object.fromEntries(counts.map((row) => [row.status, row.n])),
      pendingByAge: Object.fromEntries(
        PENDING_AGE_BUCKETS.map(({ label }, i) => [label, ages[`b${i}`] ?? 0]),
      ) as PaymentStats['pendingByAge'],
    };
  }

  pendingPayments(limit: number): Promise<Payment[]> {
    return this.db.rows<Payment>(`SELECT ${PAYMENT.select} FROM payments WHERE ${OPEN} ORDER BY created_at LIMIT ?`, [
      limit,
    ]);
  }

  async recordWebhook(event: Parameters<Store['recordWebhook']>[0]): Promise<boolean> {
    const inserted = await this.db.run(
      `INSERT INTO webhook_events (dedupe_key, transaction_id, received_at, body) VALUES (?, ?, ?, ?)
         ON CONFLICT (dedupe_key) DO NOTHING`,
      [event.dedupeKey, event.transactionId, event.receivedAt, event.body],
    );
    return inserted === 1;
  }

  /** A write, as payments need: a full disk, a read-only database or a standby would still answer a read. */
  async ping(): Promise<void> {
    await this.db.run('INSERT INTO heartbeat (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at', [
      Date.now(),
    ]);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

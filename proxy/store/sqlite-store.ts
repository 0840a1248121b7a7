import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './sqlite-migrations.ts';
import {
  decideAttempt,
  decodeCursor,
  encodeCursor,
  mergeUpdate,
  type Attempt,
  type BeginAttempt,
  type Checkout,
  type Payment,
  type PaymentPage,
  type PaymentUpdate,
  type Store,
} from './store.ts';

type Row = Record<string, unknown>;

const toCheckout = (row: Row): Checkout => ({
  checkoutId: row.checkout_id as string,
  amount: row.amount as string,
  currencyCode: row.currency_code as string,
  reference: row.reference as string,
  metadata: (row.metadata as string | null) ?? null,
  createdAt: row.created_at as number,
  expiresAt: row.expires_at as number,
  currentAttempt: (row.current_attempt as string | null) ?? null,
});

const toAttempt = (row: Row): Attempt => ({
  idempotencyKey: row.idempotency_key as string,
  fingerprint: row.fingerprint as string,
  checkoutId: (row.checkout_id as string | null) ?? null,
  statusToken: row.status_token as string,
  state: row.state as Attempt['state'],
  transactionId: (row.transaction_id as string | null) ?? null,
  createdAt: row.created_at as number,
});

const toPayment = (row: Row): Payment => ({
  transactionId: row.transaction_id as string,
  statusToken: row.status_token as string,
  idempotencyKey: row.idempotency_key as string,
  checkoutId: (row.checkout_id as string | null) ?? null,
  amount: row.amount as string,
  currencyCode: row.currency_code as string,
  reference: row.reference as string,
  environment: row.environment as Payment['environment'],
  flowUrl: row.flow_url as string,
  status: row.status as string,
  networkStatus: (row.network_status as string | null) ?? null,
  networkPaymentId: (row.network_payment_id as string | null) ?? null,
  paymentRail: (row.payment_rail as string | null) ?? null,
  providerId: (row.provider_id as string | null) ?? null,
  initiatedAt: row.initiated_at as string,
  updatedAt: row.updated_at as string,
  completedAt: (row.completed_at as string | null) ?? null,
  createdAt: row.created_at as number,
  lastCheckedAt: (row.last_checked_at as number | null) ?? null,
});

/**
 * The embedded store: one SQLite file in WAL mode, migrated at open. better-sqlite3 is synchronous,
 * so each method is one transaction that nothing else in the process can interleave with.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  /** Preparing is costlier than running: each statement is prepared once and kept. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length)
      throw new Error(`the database at version ${current} is newer than this Kassa (${MIGRATIONS.length})`);
    for (const [index, sql] of MIGRATIONS.entries()) {
      if (index < current) continue;
      this.db.transaction(() => {
        this.db.exec(sql);
        this.db.pragma(`user_version = ${index + 1}`);
      })();
    }
  }

  async insertCheckout(checkout: Checkout): Promise<void> {
    this.sql(
      `INSERT INTO checkouts (checkout_id, amount, currency_code, reference, metadata, created_at, expires_at, current_attempt)
         VALUES (@checkoutId, @amount, @currencyCode, @reference, @metadata, @createdAt, @expiresAt, @currentAttempt)`,
    ).run(checkout);
  }

  async getCheckout(checkoutId: string): Promise<Checkout | undefined> {
    const row = this.sql('SELECT * FROM checkouts WHERE checkout_id = ?').get(checkoutId) as Row | undefined;
    return row && toCheckout(row);
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
             status, network_status, network_payment_id, payment_rail, provider_id, initiated_at, updated_at, completed_at, created_at, last_checked_at)
           VALUES (@transactionId, @statusToken, @idempotencyKey, @checkoutId, @amount, @currencyCode, @reference, @environment, @flowUrl,
             @status, @networkStatus, @networkPaymentId, @paymentRail, @providerId, @initiatedAt, @updatedAt, @completedAt, @createdAt, @lastCheckedAt)`,
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

  async applyUpdate(transactionId: string, update: PaymentUpdate, checkedAt: number): Promise<Payment | undefined> {
    return this.db
      .transaction(() => {
        const row = this.sql('SELECT * FROM payments WHERE transaction_id = ?').get(transactionId) as Row | undefined;
        if (!row) return undefined;
        const next = mergeUpdate(toPayment(row), update);
        if (!next) {
          this.sql('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?').run(checkedAt, transactionId);
          return undefined;
        }
        next.lastCheckedAt = checkedAt;
        this.sql(
          `UPDATE payments SET status = @status, network_status = @networkStatus, network_payment_id = @networkPaymentId, payment_rail = @paymentRail,
               provider_id = @providerId, updated_at = @updatedAt, completed_at = @completedAt, last_checked_at = @lastCheckedAt
             WHERE transaction_id = @transactionId`,
        ).run(next);
        return next;
      })
      .immediate();
  }

  async markChecked(transactionId: string, checkedAt: number): Promise<void> {
    this.sql('UPDATE payments SET last_checked_at = ? WHERE transaction_id = ?').run(checkedAt, transactionId);
  }

  async listPayments(query: {
    status?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PaymentPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status) {
      where.push('status = ?');
      params.push(query.status);
    }
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

  async ping(): Promise<void> {
    this.sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  private attempt(idempotencyKey: string): Attempt | undefined {
    const row = this.sql('SELECT * FROM attempts WHERE idempotency_key = ?').get(idempotencyKey) as Row | undefined;
    return row && toAttempt(row);
  }
}

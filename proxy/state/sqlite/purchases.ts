import type Database from 'better-sqlite3';
import type { PurchaseState } from '../../../schemas/onramp.ts';
import type { NewEvent } from '../outbox.ts';
import {
  COUNTS_AGAINST_LIMIT,
  decodePurchaseCursor,
  dueAt,
  meetsExpectation,
  purchasePage,
  type CreatePurchaseOutcome,
  type PurchaseAuditRecord,
  type PurchaseChange,
  type PurchaseExpectation,
  type PurchasePage,
  type PurchaseRecord,
  type PurchaseStore,
  type PurchaseUpdateOutcome,
  type QuoteRecord,
} from '../purchases.ts';
import { toPurchaseAudit } from '../sql-rows.ts';
import { insertEvents } from './outbox.ts';

type Sql = (text: string) => Database.Statement;

const record = (row: { record: string } | undefined): PurchaseRecord | undefined =>
  row ? (JSON.parse(row.record) as PurchaseRecord) : undefined;

/**
 * Quotes and purchases in the SQLite file (tables `onramp_quotes`, `purchases`, `purchase_audit`):
 * each purchase a JSON record, with the columns its lookups, limits and uniqueness rules need.
 */
export class SqlitePurchases implements PurchaseStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async saveQuote(quote: QuoteRecord): Promise<void> {
    this.sql('INSERT INTO onramp_quotes (quote_id, expires_at, record) VALUES (?, ?, ?)').run(
      quote.quoteId,
      quote.expiresAt,
      JSON.stringify(quote),
    );
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const row = this.sql('SELECT record FROM onramp_quotes WHERE quote_id = ?').get(quoteId) as
      { record: string } | undefined;
    return row ? (JSON.parse(row.record) as QuoteRecord) : undefined;
  }

  async forgetQuotes(before: number): Promise<void> {
    this.sql('DELETE FROM onramp_quotes WHERE expires_at < ?').run(before);
  }

  async create(input: {
    purchase: PurchaseRecord;
    idempotencyKey: string | null;
    limitCents: number | null;
    windowStart: number;
  }): Promise<CreatePurchaseOutcome> {
    const { purchase } = input;
    return this.db
      .transaction((): CreatePurchaseOutcome => {
        const used = this.sql('SELECT record, idempotency_key FROM purchases WHERE quote_id = ?').get(
          purchase.quoteId,
        ) as { record: string; idempotency_key: string | null } | undefined;
        if (used)
          return input.idempotencyKey !== null && used.idempotency_key === input.idempotencyKey
            ? { outcome: 'replay', purchase: record(used)! }
            : { outcome: 'quote-used' };
        if (input.limitCents !== null) {
          const usedCents = this.walletTotal(purchase.wallet, purchase.symbol, input.windowStart);
          if (usedCents + purchase.tokensCents > input.limitCents) return { outcome: 'limit', usedCents };
        }
        this.sql(
          `INSERT INTO purchases (purchase_id, purchase_token, quote_id, idempotency_key, checkout_id, wallet, symbol,
             tokens_cents, state, created_at, tx_hash, revision, due_at, record)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
        ).run(
          purchase.purchaseId,
          purchase.purchaseToken,
          purchase.quoteId,
          input.idempotencyKey,
          purchase.checkoutId,
          purchase.wallet,
          purchase.symbol,
          purchase.tokensCents,
          purchase.state,
          purchase.createdAt,
          purchase.revision,
          dueAt(purchase),
          JSON.stringify(purchase),
        );
        return { outcome: 'created' };
      })
      .immediate();
  }

  async usedByWallet(wallet: string, symbol: string, since: number): Promise<number> {
    return this.walletTotal(wallet, symbol, since);
  }

  private walletTotal(wallet: string, symbol: string, since: number): number {
    const rows = this.sql(
      'SELECT state, tokens_cents FROM purchases WHERE wallet = ? AND symbol = ? AND created_at > ?',
    ).all(wallet, symbol, since) as Array<{ state: PurchaseState; tokens_cents: number }>;
    return rows.reduce((sum, row) => (COUNTS_AGAINST_LIMIT(row.state) ? sum + row.tokens_cents : sum), 0);
  }

  async byId(purchaseId: string): Promise<PurchaseRecord | undefined> {
    return record(this.sql('SELECT record FROM purchases WHERE purchase_id = ?').get(purchaseId) as { record: string });
  }

  async byToken(purchaseToken: string): Promise<PurchaseRecord | undefined> {
    return record(
      this.sql('SELECT record FROM purchases WHERE purchase_token = ?').get(purchaseToken) as { record: string },
    );
  }

  async byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined> {
    return record(this.sql('SELECT record FROM purchases WHERE checkout_id = ?').get(checkoutId) as { record: string });
  }

  async list(query: {
    state?: PurchaseState | undefined;
    wallet?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PurchasePage> {
    const where: string[] = [];
    const values: Array<string | number> = [];
    if (query.state) {
      where.push('state = ?');
      values.push(query.state);
    }
    if (query.wallet) {
      where.push('wallet = ?');
      values.push(query.wallet);
    }
    if (query.cursor) {
      const { createdAt, purchaseId } = decodePurchaseCursor(query.cursor);
      where.push('(created_at < ? OR (created_at = ? AND purchase_id < ?))');
      values.push(createdAt, createdAt, purchaseId);
    }
    const rows = this.sql(
      `SELECT record FROM purchases ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, purchase_id DESC LIMIT ?`,
    ).all(...values, query.limit + 1) as Array<{ record: string }>;
    return purchasePage(
      rows.map((row) => record(row)!),
      query.limit,
    );
  }

  async unsettled(states: readonly PurchaseState[], limit: number): Promise<PurchaseRecord[]> {
    const rows = this.sql(
      `SELECT record FROM purchases WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY created_at LIMIT ?`,
    ).all(...states, limit) as Array<{ record: string }>;
    return rows.map((row) => record(row)!);
  }

  async due(now: number, limit: number): Promise<PurchaseRecord[]> {
    const rows = this.sql('SELECT record FROM purchases WHERE due_at <= ? ORDER BY due_at, purchase_id LIMIT ?').all(
      now,
      limit,
    ) as Array<{ record: string }>;
    return rows.map((row) => record(row)!);
  }

  async update(
    purchaseId: string,
    expected: PurchaseExpectation,
    change: PurchaseChange,
    effects: { events?: (next: PurchaseRecord) => NewEvent[]; audit?: PurchaseAuditRecord } = {},
  ): Promise<PurchaseUpdateOutcome> {
    return this.db
      .transaction((): PurchaseUpdateOutcome => {
        const current = record(
          this.sql('SELECT record FROM purchases WHERE purchase_id = ?').get(purchaseId) as { record: string },
        );
        if (!current || !meetsExpectation(current, expected)) return { outcome: 'moved', purchase: current };
        const next: PurchaseRecord = { ...current, ...change, revision: current.revision + 1 };
        if (next.txHash && next.txHash !== current.txHash) {
          const holder = this.sql('SELECT purchase_id FROM purchases WHERE tx_hash = ?').get(next.txHash) as
            { purchase_id: string } | undefined;
          if (holder && holder.purchase_id !== purchaseId) return { outcome: 'tx-taken' };
        }
        this.sql(
          'UPDATE purchases SET state = ?, tx_hash = ?, revision = ?, due_at = ?, record = ? WHERE purchase_id = ?',
        ).run(next.state, next.txHash, next.revision, dueAt(next), JSON.stringify(next), purchaseId);
        if (effects.events) insertEvents(this.sql, effects.events(next));
        if (effects.audit)
          this.sql(
            `INSERT INTO purchase_audit (purchase_id, at, action, note, previous_state, state, request_id)
               VALUES (?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            purchaseId,
            effects.audit.at,
            effects.audit.action,
            effects.audit.note,
            effects.audit.previousState,
            effects.audit.state,
            effects.audit.requestId,
          );
        return { outcome: 'updated', purchase: next };
      })
      .immediate();
  }

  async lease(purchaseId: string, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const result = this.sql(
      `UPDATE purchases SET lease_holder = ?, lease_until = ?
         WHERE purchase_id = ? AND (lease_until IS NULL OR lease_until <= ? OR lease_holder = ?)`,
    ).run(holder, now + leaseMs, purchaseId, now, holder);
    return result.changes === 1;
  }

  async unlease(purchaseId: string, holder: string): Promise<void> {
    this.sql(
      'UPDATE purchases SET lease_holder = NULL, lease_until = NULL WHERE purchase_id = ? AND lease_holder = ?',
    ).run(purchaseId, holder);
  }

  async leaseHolder(purchaseId: string, now: number): Promise<string | null> {
    const row = this.sql('SELECT lease_holder FROM purchases WHERE purchase_id = ? AND lease_until > ?').get(
      purchaseId,
      now,
    ) as { lease_holder: string | null } | undefined;
    return row?.lease_holder ?? null;
  }

  async audit(purchaseId: string): Promise<PurchaseAuditRecord[]> {
    const rows = this.sql(
      'SELECT at, action, note, previous_state, state, request_id FROM purchase_audit WHERE purchase_id = ? ORDER BY at, rowid',
    ).all(purchaseId) as Array<Record<string, unknown>>;
    return rows.map(toPurchaseAudit);
  }
}

import type { PurchaseState } from '../../../schemas/onramp.ts';
import type { EventRouting } from '../outbox.ts';
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
import { fromJson, type Database, type Sql } from './database.ts';
import { insertEvents } from './outbox.ts';
import { PURCHASE_AUDIT, RecordTable } from './rows.ts';

const QUOTES = new RecordTable<QuoteRecord>('onramp_quotes', 'quoteId expiresAt');
/** A purchase's row: the columns its lookups, limits and uniqueness rules need, and the whole record. */
const PURCHASES = new RecordTable<PurchaseRecord>(
  'purchases',
  'purchaseId purchaseToken quoteId idempotencyKey checkoutId wallet symbol tokensCents state createdAt txHash revision dueAt',
);
const NEWEST = PURCHASES.newestFirst('purchase_id');

/** A purchase's mint transaction is unique (`tx_hash`): the database's last word on a race. */
class TxTaken extends Error {}

/**
 * Quotes and purchases in the database (tables `onramp_quotes`, `purchases`, `purchase_audit`): each
 * purchase a JSON record, with the columns its lookups, limits and uniqueness rules need. A wallet's
 * purchases of one coin are created one at a time (the dialect's lock on wallet and coin), so racing
 * purchases on several instances cannot together pass its limit.
 */
export class SqlPurchases implements PurchaseStore {
  constructor(
    private readonly db: Database,
    /** Who takes the events a purchase's step writes (the outbox's). */
    private readonly routing: EventRouting,
  ) {}

  async saveQuote(quote: QuoteRecord): Promise<void> {
    await QUOTES.insert(this.db, quote);
  }

  getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    return QUOTES.get(this.db, quoteId);
  }

  async forgetQuotes(before: number): Promise<void> {
    await this.db.run('DELETE FROM onramp_quotes WHERE expires_at < ?', [before]);
  }

  create(input: Parameters<PurchaseStore['create']>[0]): Promise<CreatePurchaseOutcome> {
    const { purchase } = input;
    return this.db.transaction(async (tx): Promise<CreatePurchaseOutcome> => {
      await this.db.dialect.lock(tx, `wallet:${purchase.wallet}:${purchase.symbol}`);
      const answerUsed = async () => {
        const used = await tx.row<{ record: unknown; idempotencyKey: string | null }>(
          'SELECT record, idempotency_key AS "idempotencyKey" FROM purchases WHERE quote_id = ?',
          [purchase.quoteId],
        );
        if (!used) return undefined;
        return input.idempotencyKey !== null && used.idempotencyKey === input.idempotencyKey
          ? ({ outcome: 'replay', purchase: fromJson<PurchaseRecord>(used.record) } as const)
          : ({ outcome: 'quote-used' } as const);
      };
      const used = await answerUsed();
      if (used) return used;
      if (input.limitCents !== null) {
        const usedCents = await walletTotal(tx, purchase.wallet, purchase.symbol, input.windowStart);
        if (usedCents + purchase.tokensCents > input.limitCents) return { outcome: 'limit', usedCents };
      }
      // A quote is one wallet's, so its racing uses wait on the same lock; the unique index decides anyway.
      const inserted = await PURCHASES.insert(
        tx,
        purchase,
        { idempotencyKey: input.idempotencyKey, dueAt: dueAt(purchase) },
        ' ON CONFLICT (quote_id) DO NOTHING',
      );
      return inserted === 1 ? { outcome: 'created' } : ((await answerUsed()) ?? { outcome: 'quote-used' });
    });
  }

  usedByWallet(wallet: string, symbol: string, since: number): Promise<number> {
    return walletTotal(this.db, wallet, symbol, since);
  }

  byId(purchaseId: string): Promise<PurchaseRecord | undefined> {
    return PURCHASES.get(this.db, purchaseId);
  }

  byToken(purchaseToken: string): Promise<PurchaseRecord | undefined> {
    return PURCHASES.one(this.db, 'purchase_token = ?', [purchaseToken]);
  }

  byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined> {
    return PURCHASES.one(this.db, 'checkout_id = ?', [checkoutId]);
  }

  async list(query: Parameters<PurchaseStore['list']>[0]): Promise<PurchasePage> {
    const after = query.cursor ? decodePurchaseCursor(query.cursor) : undefined;
    const rows = await NEWEST.rows(this.db, after && [after.createdAt, after.purchaseId], query.limit, {
      'state = ?': query.state,
      'wallet = ?': query.wallet,
    });
    return purchasePage(rows, query.limit);
  }

  unsettled(states: readonly PurchaseState[], limit: number): Promise<PurchaseRecord[]> {
    return PURCHASES.all(this.db, `WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY created_at LIMIT ?`, [
      ...states,
      limit,
    ]);
  }

  due(now: number, limit: number): Promise<PurchaseRecord[]> {
    return PURCHASES.all(this.db, 'WHERE due_at <= ? ORDER BY due_at, purchase_id LIMIT ?', [now, limit]);
  }

  async update(
    purchaseId: string,
    expected: PurchaseExpectation,
    change: PurchaseChange,
    effects: Parameters<PurchaseStore['update']>[3] = {},
  ): Promise<PurchaseUpdateOutcome> {
    try {
      return await this.db.transaction(async (tx): Promise<PurchaseUpdateOutcome> => {
        const current = await PURCHASES.get(tx, purchaseId, this.db.dialect.forUpdate);
        if (!current || !meetsExpectation(current, expected)) return { outcome: 'moved', purchase: current };
        const next: PurchaseRecord = { ...current, ...change, revision: current.revision + 1 };
        if (next.txHash && next.txHash !== current.txHash) {
          const holder = await tx.row<{ id: string }>('SELECT purchase_id AS id FROM purchases WHERE tx_hash = ?', [
            next.txHash,
          ]);
          if (holder && holder.id !== purchaseId) return { outcome: 'tx-taken' };
        }
        await tx
          .run(
            'UPDATE purchases SET state = ?, tx_hash = ?, revision = ?, due_at = ?, record = ? WHERE purchase_id = ?',
            [next.state, next.txHash, next.revision, dueAt(next), JSON.stringify(next), purchaseId],
          )
          .catch((error: unknown) => {
            throw this.db.dialect.isUniqueViolation(error) ? new TxTaken() : error;
          });
        if (effects.events) await insertEvents(tx, this.db.dialect, effects.events(next), this.routing);
        if (effects.audit)
          await tx.run(
            `INSERT INTO purchase_audit (purchase_id, ${PURCHASE_AUDIT.names}) VALUES (?, ${PURCHASE_AUDIT.marks})`,
            [purchaseId, ...PURCHASE_AUDIT.values(effects.audit)],
          );
        return { outcome: 'updated', purchase: next };
      });
    } catch (error) {
      if (error instanceof TxTaken) return { outcome: 'tx-taken' };
      throw error;
    }
  }

  async lease(purchaseId: string, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const leased = await this.db.run(
      `UPDATE purchases SET lease_holder = ?, lease_until = ?
         WHERE purchase_id = ? AND (lease_until IS NULL OR lease_until <= ? OR lease_holder = ?)`,
      [holder, now + leaseMs, purchaseId, now, holder],
    );
    return leased === 1;
  }

  async unlease(purchaseId: string, holder: string): Promise<void> {
    await this.db.run(
      'UPDATE purchases SET lease_holder = NULL, lease_until = NULL WHERE purchase_id = ? AND lease_holder = ?',
      [purchaseId, holder],
    );
  }

  async leaseHolder(purchaseId: string, now: number): Promise<string | null> {
    const row = await this.db.row<{ holder: string | null }>(
      'SELECT lease_holder AS holder FROM purchases WHERE purchase_id = ? AND lease_until > ?',
      [purchaseId, now],
    );
    return row?.holder ?? null;
  }

  audit(purchaseId: string): Promise<PurchaseAuditRecord[]> {
    return this.db.rows(
      `SELECT ${PURCHASE_AUDIT.select} FROM purchase_audit WHERE purchase_id = ? ORDER BY at, ${this.db.dialect.rowId('audit_id')}`,
      [purchaseId],
    );
  }
}

async function walletTotal(sql: Sql, wallet: string, symbol: string, since: number): Promise<number> {
  const rows = await sql.rows<{ state: PurchaseState; cents: number }>(
    'SELECT state, tokens_cents AS cents FROM purchases WHERE wallet = ? AND symbol = ? AND created_at > ?',
    [wallet, symbol, since],
  );
  return rows.reduce((sum, row) => (COUNTS_AGAINST_LIMIT(row.state) ? sum + row.cents : sum), 0);
}

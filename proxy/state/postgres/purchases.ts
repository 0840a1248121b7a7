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
import type { Database, Sql } from './database.ts';
import { sqlState } from './faults.ts';
import { insertEvents } from './outbox.ts';

/** A purchase's mint transaction is unique (`purchases_tx_hash_key`): the database's last word on a race. */
class TxTaken extends Error {}

/**
 * Quotes and purchases in PostgreSQL (tables `onramp_quotes`, `purchases`, `purchase_audit`): each
 * purchase a JSONB record, with the columns its lookups, limits and uniqueness rules need. A wallet's
 * purchases of one coin are created one at a time (an advisory lock on wallet and coin), so racing
 * purchases on several instances cannot together pass its limit.
 */
export class PostgresPurchases implements PurchaseStore {
  constructor(private readonly db: Database) {}

  async saveQuote(quote: QuoteRecord): Promise<void> {
    await this.db.run('INSERT INTO onramp_quotes (quote_id, expires_at, record) VALUES ($1, $2, $3)', [
      quote.quoteId,
      quote.expiresAt,
      JSON.stringify(quote),
    ]);
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    return (
      await this.db.row<{ record: QuoteRecord }>('SELECT record FROM onramp_quotes WHERE quote_id = $1', [quoteId])
    )?.record;
  }

  async forgetQuotes(before: number): Promise<void> {
    await this.db.run('DELETE FROM onramp_quotes WHERE expires_at < $1', [before]);
  }

  create(input: {
    purchase: PurchaseRecord;
    idempotencyKey: string | null;
    limitCents: number | null;
    windowStart: number;
  }): Promise<CreatePurchaseOutcome> {
    const { purchase } = input;
    return this.db.transaction(async (tx): Promise<CreatePurchaseOutcome> => {
      await tx.run('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `kassa:wallet:${purchase.wallet}:${purchase.symbol}`,
      ]);
      const answerUsed = async () => {
        const used = await tx.row<{ record: PurchaseRecord; idempotency_key: string | null }>(
          'SELECT record, idempotency_key FROM purchases WHERE quote_id = $1',
          [purchase.quoteId],
        );
        if (!used) return undefined;
        return input.idempotencyKey !== null && used.idempotency_key === input.idempotencyKey
          ? ({ outcome: 'replay', purchase: used.record } as const)
          : ({ outcome: 'quote-used' } as const);
      };
      const used = await answerUsed();
      if (used) return used;
      if (input.limitCents !== null) {
        const usedCents = await walletTotal(tx, purchase.wallet, purchase.symbol, input.windowStart);
        if (usedCents + purchase.tokensCents > input.limitCents) return { outcome: 'limit', usedCents };
      }
      // A quote is one wallet's, so its racing uses wait on the same lock; the unique index decides anyway.
      const inserted = await tx.run(
        `INSERT INTO purchases (purchase_id, purchase_token, quote_id, idempotency_key, checkout_id, wallet, symbol,
             tokens_cents, state, created_at, tx_hash, revision, due_at, record)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12, $13)
           ON CONFLICT (quote_id) DO NOTHING`,
        [
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
        ],
      );
      return inserted === 1 ? { outcome: 'created' } : ((await answerUsed()) ?? { outcome: 'quote-used' });
    });
  }

  usedByWallet(wallet: string, symbol: string, since: number): Promise<number> {
    return walletTotal(this.db, wallet, symbol, since);
  }

  byId(purchaseId: string): Promise<PurchaseRecord | undefined> {
    return this.recordWhere('purchase_id', purchaseId);
  }

  byToken(purchaseToken: string): Promise<PurchaseRecord | undefined> {
    return this.recordWhere('purchase_token', purchaseToken);
  }

  byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined> {
    return this.recordWhere('checkout_id', checkoutId);
  }

  async list(query: {
    state?: PurchaseState | undefined;
    wallet?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PurchasePage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.state) where.push(`state = $${params.push(query.state)}`);
    if (query.wallet) where.push(`wallet = $${params.push(query.wallet)}`);
    if (query.cursor) {
      const { createdAt, purchaseId } = decodePurchaseCursor(query.cursor);
      params.push(createdAt, purchaseId);
      where.push(`(created_at, purchase_id) < ($${params.length - 1}, $${params.length})`);
    }
    const rows = await this.db.rows<{ record: PurchaseRecord }>(
      `SELECT record FROM purchases ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, purchase_id DESC LIMIT $${params.push(query.limit + 1)}`,
      params,
    );
    return purchasePage(
      rows.map((row) => row.record),
      query.limit,
    );
  }

  async unsettled(states: readonly PurchaseState[], limit: number): Promise<PurchaseRecord[]> {
    const rows = await this.db.rows<{ record: PurchaseRecord }>(
      'SELECT record FROM purchases WHERE state = ANY ($1) ORDER BY created_at LIMIT $2',
      [states, limit],
    );
    return rows.map((row) => row.record);
  }

  async due(now: number, limit: number): Promise<PurchaseRecord[]> {
    const rows = await this.db.rows<{ record: PurchaseRecord }>(
      'SELECT record FROM purchases WHERE due_at <= $1 ORDER BY due_at, purchase_id LIMIT $2',
      [now, limit],
    );
    return rows.map((row) => row.record);
  }

  async update(
    purchaseId: string,
    expected: PurchaseExpectation,
    change: PurchaseChange,
    effects: { events?: (next: PurchaseRecord) => NewEvent[]; audit?: PurchaseAuditRecord } = {},
  ): Promise<PurchaseUpdateOutcome> {
    try {
      return await this.db.transaction(async (tx): Promise<PurchaseUpdateOutcome> => {
        const current = (
          await tx.row<{ record: PurchaseRecord }>('SELECT record FROM purchases WHERE purchase_id = $1 FOR UPDATE', [
            purchaseId,
          ])
        )?.record;
        if (!current || !meetsExpectation(current, expected)) return { outcome: 'moved', purchase: current };
        const next: PurchaseRecord = { ...current, ...change, revision: current.revision + 1 };
        if (next.txHash && next.txHash !== current.txHash) {
          const holder = await tx.row<{ purchase_id: string }>('SELECT purchase_id FROM purchases WHERE tx_hash = $1', [
            next.txHash,
          ]);
          if (holder && holder.purchase_id !== purchaseId) return { outcome: 'tx-taken' };
        }
        await tx
          .run(
            'UPDATE purchases SET state = $1, tx_hash = $2, revision = $3, due_at = $4, record = $5 WHERE purchase_id = $6',
            [next.state, next.txHash, next.revision, dueAt(next), JSON.stringify(next), purchaseId],
          )
          .catch((error: unknown) => {
            throw sqlState(error) === '23505' ? new TxTaken() : error;
          });
        if (effects.events) await insertEvents(tx, effects.events(next));
        if (effects.audit)
          await tx.run(
            `INSERT INTO purchase_audit (purchase_id, at, action, note, previous_state, state, request_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [
              purchaseId,
              effects.audit.at,
              effects.audit.action,
              effects.audit.note,
              effects.audit.previousState,
              effects.audit.state,
              effects.audit.requestId,
            ],
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
      `UPDATE purchases SET lease_holder = $1, lease_until = $2
         WHERE purchase_id = $3 AND (lease_until IS NULL OR lease_until <= $4 OR lease_holder = $1)`,
      [holder, now + leaseMs, purchaseId, now],
    );
    return leased === 1;
  }

  async unlease(purchaseId: string, holder: string): Promise<void> {
    await this.db.run(
      'UPDATE purchases SET lease_holder = NULL, lease_until = NULL WHERE purchase_id = $1 AND lease_holder = $2',
      [purchaseId, holder],
    );
  }

  async leaseHolder(purchaseId: string, now: number): Promise<string | null> {
    const row = await this.db.row<{ lease_holder: string | null }>(
      'SELECT lease_holder FROM purchases WHERE purchase_id = $1 AND lease_until > $2',
      [purchaseId, now],
    );
    return row?.lease_holder ?? null;
  }

  async audit(purchaseId: string): Promise<PurchaseAuditRecord[]> {
    const rows = await this.db.rows(
      `SELECT at, action, note, previous_state, state, request_id FROM purchase_audit
         WHERE purchase_id = $1 ORDER BY at, audit_id`,
      [purchaseId],
    );
    return rows.map(toPurchaseAudit);
  }

  private async recordWhere(
    column: 'purchase_id' | 'purchase_token' | 'checkout_id',
    value: string,
  ): Promise<PurchaseRecord | undefined> {
    return (await this.db.row<{ record: PurchaseRecord }>(`SELECT record FROM purchases WHERE ${column} = $1`, [value]))
      ?.record;
  }
}

async function walletTotal(sql: Sql, wallet: string, symbol: string, since: number): Promise<number> {
  const rows = await sql.rows<{ state: PurchaseState; tokens_cents: number }>(
    'SELECT state, tokens_cents FROM purchases WHERE wallet = $1 AND symbol = $2 AND created_at > $3',
    [wallet, symbol, since],
  );
  return rows.reduce((sum, row) => (COUNTS_AGAINST_LIMIT(row.state) ? sum + row.tokens_cents : sum), 0);
}

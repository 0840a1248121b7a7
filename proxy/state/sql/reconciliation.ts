import type { Reconciliation, Resolution, Unverifiable } from '../reconciliation.ts';
import type { Database } from './database.ts';
import { RESOLUTION, UNVERIFIABLE } from './rows.ts';

/** Reconciliation records in the database (tables `rereads`, `unverifiable`, `resolutions`). */
export class SqlReconciliation implements Reconciliation {
  constructor(private readonly db: Database) {}

  async queueReread(transactionId: string, at: number): Promise<void> {
    // Queued again: a read already under way (begun before `at`) does not settle it.
    await this.db.run(
      `INSERT INTO rereads (transaction_id, queued_at) VALUES (?, ?)
         ON CONFLICT (transaction_id) DO UPDATE SET queued_at = excluded.queued_at WHERE rereads.queued_at < excluded.queued_at`,
      [transactionId, at],
    );
  }

  async dequeueReread(transactionId: string, readAt?: number): Promise<void> {
    if (readAt === undefined) await this.db.run('DELETE FROM rereads WHERE transaction_id = ?', [transactionId]);
    else await this.db.run('DELETE FROM rereads WHERE transaction_id = ? AND queued_at < ?', [transactionId, readAt]);
  }

  async queuedRereads(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(
      'SELECT transaction_id AS id FROM rereads ORDER BY queued_at, transaction_id LIMIT ?',
      [limit],
    );
    return rows.map((row) => row.id);
  }

  async markUnverifiable(entry: Unverifiable): Promise<void> {
    await this.db.run(
      `INSERT INTO unverifiable (${UNVERIFIABLE.names}) VALUES (${UNVERIFIABLE.marks})
         ON CONFLICT (transaction_id) DO UPDATE SET reason = excluded.reason`,
      UNVERIFIABLE.values(entry),
    );
  }

  async clearUnverifiable(transactionId: string): Promise<void> {
    await this.db.run('DELETE FROM unverifiable WHERE transaction_id = ?', [transactionId]);
  }

  unverifiable(limit: number): Promise<Unverifiable[]> {
    return this.db.rows(`SELECT ${UNVERIFIABLE.select} FROM unverifiable ORDER BY since LIMIT ?`, [limit]);
  }

  unverifiableOf(transactionId: string): Promise<Unverifiable | undefined> {
    return this.db.row(`SELECT ${UNVERIFIABLE.select} FROM unverifiable WHERE transaction_id = ?`, [transactionId]);
  }

  lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined> {
    return this.db.row(
      `SELECT received_at AS "receivedAt", body FROM webhook_events WHERE transaction_id = ?
         ORDER BY received_at DESC LIMIT 1`,
      [transactionId],
    );
  }

  async recordResolution(resolution: Resolution): Promise<void> {
    await this.db.run(
      `INSERT INTO resolutions (${RESOLUTION.names}) VALUES (${RESOLUTION.marks})`,
      RESOLUTION.values(resolution),
    );
  }

  resolutions(transactionId: string): Promise<Resolution[]> {
    return this.db.rows(
      `SELECT ${RESOLUTION.select} FROM resolutions WHERE transaction_id = ? ORDER BY resolved_at, ${this.db.dialect.rowId('resolution_id')}`,
      [transactionId],
    );
  }
}

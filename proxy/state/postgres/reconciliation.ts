import type { Reconciliation, Resolution, Unverifiable } from '../reconciliation.ts';
import type { Database } from './database.ts';

type UnverifiableRow = { transaction_id: string; reason: string; since: number };
const toUnverifiable = (row: UnverifiableRow): Unverifiable => ({
  transactionId: row.transaction_id,
  reason: row.reason,
  since: row.since,
});

/** Reconciliation records in PostgreSQL (tables `rereads`, `unverifiable`, `resolutions`). */
export class PostgresReconciliation implements Reconciliation {
  constructor(private readonly db: Database) {}

  async queueReread(transactionId: string, at: number): Promise<void> {
    // Queued again: a read already under way (begun before `at`) does not settle it.
    await this.db.run(
      `INSERT INTO rereads (transaction_id, queued_at) VALUES ($1, $2)
         ON CONFLICT (transaction_id) DO UPDATE SET queued_at = GREATEST(rereads.queued_at, excluded.queued_at)`,
      [transactionId, at],
    );
  }

  async dequeueReread(transactionId: string, readAt?: number): Promise<void> {
    if (readAt === undefined) await this.db.run('DELETE FROM rereads WHERE transaction_id = $1', [transactionId]);
    else await this.db.run('DELETE FROM rereads WHERE transaction_id = $1 AND queued_at < $2', [transactionId, readAt]);
  }

  async queuedRereads(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ transaction_id: string }>(
      'SELECT transaction_id FROM rereads ORDER BY queued_at, transaction_id LIMIT $1',
      [limit],
    );
    return rows.map((row) => row.transaction_id);
  }

  async markUnverifiable(entry: Unverifiable): Promise<void> {
    await this.db.run(
      `INSERT INTO unverifiable (transaction_id, reason, since) VALUES ($1, $2, $3)
         ON CONFLICT (transaction_id) DO UPDATE SET reason = excluded.reason`,
      [entry.transactionId, entry.reason, entry.since],
    );
  }

  async clearUnverifiable(transactionId: string): Promise<void> {
    await this.db.run('DELETE FROM unverifiable WHERE transaction_id = $1', [transactionId]);
  }

  async unverifiable(limit: number): Promise<Unverifiable[]> {
    const rows = await this.db.rows<UnverifiableRow>('SELECT * FROM unverifiable ORDER BY since LIMIT $1', [limit]);
    return rows.map(toUnverifiable);
  }

  async unverifiableOf(transactionId: string): Promise<Unverifiable | undefined> {
    const row = await this.db.row<UnverifiableRow>('SELECT * FROM unverifiable WHERE transaction_id = $1', [
      transactionId,
    ]);
    return row && toUnverifiable(row);
  }

  async lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined> {
    const row = await this.db.row<{ received_at: number; body: string }>(
      'SELECT received_at, body FROM webhook_events WHERE transaction_id = $1 ORDER BY received_at DESC LIMIT 1',
      [transactionId],
    );
    return row && { receivedAt: row.received_at, body: row.body };
  }

  async recordResolution(resolution: Resolution): Promise<void> {
    await this.db.run(
      `INSERT INTO resolutions (transaction_id, previous_status, status, note, resolved_at) VALUES ($1, $2, $3, $4, $5)`,
      [resolution.transactionId, resolution.previousStatus, resolution.status, resolution.note, resolution.resolvedAt],
    );
  }

  async resolutions(transactionId: string): Promise<Resolution[]> {
    const rows = await this.db.rows(
      'SELECT * FROM resolutions WHERE transaction_id = $1 ORDER BY resolved_at, resolution_id',
      [transactionId],
    );
    return rows.map((row) => ({
      transactionId: row.transaction_id as string,
      previousStatus: row.previous_status as string,
      status: row.status as string,
      note: row.note as string,
      resolvedAt: row.resolved_at as number,
    }));
  }
}

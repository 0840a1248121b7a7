import type Database from 'better-sqlite3';
import type { Reconciliation, Resolution, Unverifiable } from '../reconciliation.ts';

/** Reconciliation records in the SQLite file (tables `rereads`, `unverifiable`, `resolutions`). */
export class SqliteReconciliation implements Reconciliation {
  constructor(private readonly sql: (text: string) => Database.Statement) {}

  async queueReread(transactionId: string, at: number): Promise<void> {
    this.sql(
      'INSERT INTO rereads (transaction_id, queued_at) VALUES (?, ?) ON CONFLICT (transaction_id) DO UPDATE SET queued_at = MAX(queued_at, excluded.queued_at)',
    ).run(transactionId, at);
  }

  async dequeueReread(transactionId: string, readAt?: number): Promise<void> {
    if (readAt === undefined) this.sql('DELETE FROM rereads WHERE transaction_id = ?').run(transactionId);
    else this.sql('DELETE FROM rereads WHERE transaction_id = ? AND queued_at < ?').run(transactionId, readAt);
  }

  async queuedRereads(limit: number): Promise<string[]> {
    const rows = this.sql('SELECT transaction_id FROM rereads ORDER BY queued_at LIMIT ?').all(limit) as Array<{
      transaction_id: string;
    }>;
    return rows.map((row) => row.transaction_id);
  }

  async markUnverifiable(entry: Unverifiable): Promise<void> {
    this.sql(
      'INSERT INTO unverifiable (transaction_id, reason, since) VALUES (?, ?, ?) ON CONFLICT (transaction_id) DO UPDATE SET reason = excluded.reason',
    ).run(entry.transactionId, entry.reason, entry.since);
  }

  async clearUnverifiable(transactionId: string): Promise<void> {
    this.sql('DELETE FROM unverifiable WHERE transaction_id = ?').run(transactionId);
  }

  async unverifiable(limit: number): Promise<Unverifiable[]> {
    const rows = this.sql('SELECT * FROM unverifiable ORDER BY since LIMIT ?').all(limit) as Array<{
      transaction_id: string;
      reason: string;
      since: number;
    }>;
    return rows.map((row) => ({ transactionId: row.transaction_id, reason: row.reason, since: row.since }));
  }

  async unverifiableOf(transactionId: string): Promise<Unverifiable | undefined> {
    const row = this.sql('SELECT * FROM unverifiable WHERE transaction_id = ?').get(transactionId) as
      { transaction_id: string; reason: string; since: number } | undefined;
    return row && { transactionId: row.transaction_id, reason: row.reason, since: row.since };
  }

  async lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined> {
    const row = this.sql(
      'SELECT received_at, body FROM webhook_events WHERE transaction_id = ? ORDER BY received_at DESC LIMIT 1',
    ).get(transactionId) as { received_at: number; body: string } | undefined;
    return row && { receivedAt: row.received_at, body: row.body };
  }

  async recordResolution(resolution: Resolution): Promise<void> {
    this.sql(
      `INSERT INTO resolutions (transaction_id, previous_status, status, note, resolved_at)
         VALUES (@transactionId, @previousStatus, @status, @note, @resolvedAt)`,
    ).run(resolution);
  }

  async resolutions(transactionId: string): Promise<Resolution[]> {
    const rows = this.sql('SELECT * FROM resolutions WHERE transaction_id = ? ORDER BY resolved_at').all(
      transactionId,
    ) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      transactionId: row.transaction_id as string,
      previousStatus: row.previous_status as string,
      status: row.status as string,
      note: row.note as string,
      resolvedAt: row.resolved_at as number,
    }));
  }
}

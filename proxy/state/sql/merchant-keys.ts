import type { MerchantKeyRecord, MerchantKeyStore } from '../merchant-keys.ts';
import type { Database } from './database.ts';
import { recordOf, recordsOf, type RecordRow } from './rows.ts';

/** The merchant's keys in the database (table `merchant_keys`): JSON records beside the columns their lookups need. */
export class SqlMerchantKeys implements MerchantKeyStore {
  constructor(private readonly db: Database) {}

  async createKey(record: MerchantKeyRecord): Promise<void> {
    await this.db.run('INSERT INTO merchant_keys (key_id, token_hash, created_at, record) VALUES (?, ?, ?, ?)', [
      record.keyId,
      record.tokenHash,
      record.createdAt,
      JSON.stringify(record),
    ]);
  }

  async listKeys(): Promise<MerchantKeyRecord[]> {
    return recordsOf(
      await this.db.rows<RecordRow>('SELECT record FROM merchant_keys ORDER BY created_at DESC, key_id DESC'),
    );
  }

  async keyById(keyId: string): Promise<MerchantKeyRecord | undefined> {
    return recordOf(await this.db.row<RecordRow>('SELECT record FROM merchant_keys WHERE key_id = ?', [keyId]));
  }

  async keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined> {
    return recordOf(await this.db.row<RecordRow>('SELECT record FROM merchant_keys WHERE token_hash = ?', [tokenHash]));
  }

  updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined> {
    return this.change(keyId, (record) => ({ ...record, ...patch }));
  }

  async touchKey(keyId: string, at: number, everyMs: number): Promise<void> {
    await this.change(keyId, (record) =>
      (record.lastUsedAt ?? 0) <= at - everyMs ? { ...record, lastUsedAt: at } : undefined,
    );
  }

  /** Reads a key's record with its row held, and writes what `next` makes of it (nothing when undefined). */
  private change(
    keyId: string,
    next: (record: MerchantKeyRecord) => MerchantKeyRecord | undefined,
  ): Promise<MerchantKeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const record = recordOf<MerchantKeyRecord>(
        await tx.row<RecordRow>(`SELECT record FROM merchant_keys WHERE key_id = ?${this.db.dialect.forUpdate}`, [
          keyId,
        ]),
      );
      const changed = record && next(record);
      if (!changed) return record;
      await tx.run('UPDATE merchant_keys SET record = ? WHERE key_id = ?', [JSON.stringify(changed), keyId]);
      return changed;
    });
  }
}

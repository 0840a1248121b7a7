import type Database from 'better-sqlite3';
import type { MerchantKeyRecord, MerchantKeyStore } from '../merchant-keys.ts';

type Sql = (text: string) => Database.Statement;
const parse = (row: unknown) =>
  row ? (JSON.parse((row as { record: string }).record) as MerchantKeyRecord) : undefined;

/** The merchant's keys in the SQLite file: JSON records beside the columns their lookups need. */
export class SqliteMerchantKeys implements MerchantKeyStore {
  constructor(private readonly sql: Sql) {}

  async createKey(record: MerchantKeyRecord): Promise<void> {
    this.sql('INSERT INTO merchant_keys (key_id, token_hash, created_at, record) VALUES (?, ?, ?, ?)').run(
      record.keyId,
      record.tokenHash,
      record.createdAt,
      JSON.stringify(record),
    );
  }

  async listKeys(): Promise<MerchantKeyRecord[]> {
    const rows = this.sql('SELECT record FROM merchant_keys ORDER BY created_at DESC, key_id DESC').all();
    return rows.map((row) => parse(row)!);
  }

  async keyById(keyId: string): Promise<MerchantKeyRecord | undefined> {
    return parse(this.sql('SELECT record FROM merchant_keys WHERE key_id = ?').get(keyId));
  }

  async keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined> {
    return parse(this.sql('SELECT record FROM merchant_keys WHERE token_hash = ?').get(tokenHash));
  }

  async updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined> {
    const row = this.sql(
      `UPDATE merchant_keys SET record = json_patch(record, ?) WHERE key_id = ? RETURNING record`,
    ).get(JSON.stringify(patch), keyId);
    return parse(row);
  }

  async touchKey(keyId: string, at: number, everyMs: number): Promise<void> {
    this.sql(
      `UPDATE merchant_keys SET record = json_set(record, '$.lastUsedAt', ?)
         WHERE key_id = ? AND coalesce(json_extract(record, '$.lastUsedAt'), 0) <= ?`,
    ).run(at, keyId, at - everyMs);
  }
}

import type { MerchantKeyRecord, MerchantKeyStore } from '../merchant-keys.ts';
import type { Database } from './database.ts';
import { RecordTable } from './rows.ts';

const KEYS = new RecordTable<MerchantKeyRecord>('merchant_keys', 'keyId tokenHash createdAt');

/** The merchant's keys in the database (table `merchant_keys`): JSON records beside the columns their lookups need. */
export class SqlMerchantKeys implements MerchantKeyStore {
  constructor(private readonly db: Database) {}

  async createKey(record: MerchantKeyRecord): Promise<void> {
    await KEYS.insert(this.db, record);
  }

  listKeys(): Promise<MerchantKeyRecord[]> {
    return KEYS.all(this.db, 'ORDER BY created_at DESC, key_id DESC');
  }

  keyById(keyId: string): Promise<MerchantKeyRecord | undefined> {
    return KEYS.get(this.db, keyId);
  }

  keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined> {
    return KEYS.one(this.db, 'token_hash = ?', [tokenHash]);
  }

  async updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined> {
    return (await KEYS.change(this.db, keyId, (record) => ({ ...record, ...patch })))[1];
  }

  async touchKey(keyId: string, at: number, everyMs: number): Promise<void> {
    await KEYS.change(this.db, keyId, (record) =>
      (record.lastUsedAt ?? 0) <= at - everyMs ? { ...record, lastUsedAt: at } : undefined,
    );
  }
}

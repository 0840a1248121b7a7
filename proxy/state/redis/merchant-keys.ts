import type { MerchantKeyRecord, MerchantKeyStore } from '../merchant-keys.ts';
import { RedisRecords } from './records.ts';

/**
 * The merchant's keys in Redis: a hash per key, its fixed fields as one JSON value and each changing
 * one (`expiresAt`, `revokedAt`, `lastUsedAt`) a field of its own, so a use recorded at the moment of
 * a revocation never writes the revocation away. The secret's hash names the key; a sorted set lists them.
 */
export class RedisMerchantKeys extends RedisRecords implements MerchantKeyStore {
  async createKey(record: MerchantKeyRecord): Promise<void> {
    const { expiresAt, revokedAt, lastUsedAt, ...fixed } = record;
    await this.redis
      .multi()
      .hset(this.key.merchantKey(record.keyId), {
        record: JSON.stringify(fixed),
        ...changing({ expiresAt, revokedAt, lastUsedAt }),
      })
      .set(this.key.merchantKeyByHash(record.tokenHash), record.keyId)
      .zadd(this.key.merchantKeys(), record.createdAt, record.keyId)
      .exec();
  }

  async listKeys(): Promise<MerchantKeyRecord[]> {
    const ids = await this.redis.zrevrange(this.key.merchantKeys(), 0, -1);
    const records = await Promise.all(ids.map((id) => this.keyById(id)));
    return records.filter((record): record is MerchantKeyRecord => record !== undefined);
  }

  async keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined> {
    const keyId = await this.redis.get(this.key.merchantKeyByHash(tokenHash));
    return keyId === null ? undefined : this.keyById(keyId);
  }

  async updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined> {
    if (!(await this.redis.exists(this.key.merchantKey(keyId)))) return undefined;
    await this.redis.hset(this.key.merchantKey(keyId), changing(patch));
    return this.keyById(keyId);
  }

  async touchKey(keyId: string, at: number): Promise<void> {
    await this.redis.hset(this.key.merchantKey(keyId), 'lastUsedAt', String(at));
  }

  async keyById(keyId: string): Promise<MerchantKeyRecord | undefined> {
    const fields = await this.redis.hgetall(this.key.merchantKey(keyId));
    if (!fields.record) return undefined;
    const number = (value: string | undefined) => (value === undefined || value === '' ? null : Number(value));
    return {
      ...(JSON.parse(fields.record) as Omit<MerchantKeyRecord, 'expiresAt' | 'revokedAt' | 'lastUsedAt'>),
      expiresAt: number(fields.expiresAt),
      revokedAt: number(fields.revokedAt),
      lastUsedAt: number(fields.lastUsedAt),
    };
  }
}

/** The changing fields as hash fields: an empty string for null. */
const changing = (fields: Record<string, number | null | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, value === null ? '' : String(value)]),
  );

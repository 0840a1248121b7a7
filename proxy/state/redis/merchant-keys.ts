import type { Redis } from 'ioredis';
import type { MerchantKeyRecord, MerchantKeyStore } from '../merchant-keys.ts';
import { guarded } from './faults.ts';
import type { RedisKeys } from './keys.ts';

/**
 * The merchant's keys in Redis: a hash per key, its fixed fields as one JSON value and each changing
 * one (`expiresAt`, `revokedAt`, `lastUsedAt`) a field of its own, so a use recorded at the moment of
 * a revocation never writes the revocation away. The secret's hash names the key; a sorted set lists them.
 */
export class RedisMerchantKeys implements MerchantKeyStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async createKey(record: MerchantKeyRecord): Promise<void> {
    const { expiresAt, revokedAt, lastUsedAt, ...fixed } = record;
    await guarded(() =>
      this.redis
        .multi()
        .hset(this.keys.merchantKey(record.keyId), {
          record: JSON.stringify(fixed),
          ...changing({ expiresAt, revokedAt, lastUsedAt }),
        })
        .set(this.keys.merchantKeyByHash(record.tokenHash), record.keyId)
        .zadd(this.keys.merchantKeys(), record.createdAt, record.keyId)
        .exec(),
    );
  }

  async listKeys(): Promise<MerchantKeyRecord[]> {
    return guarded(async () => {
      const ids = await this.redis.zrevrange(this.keys.merchantKeys(), 0, -1);
      const records = await Promise.all(ids.map((id) => this.read(id)));
      return records.filter((record): record is MerchantKeyRecord => record !== undefined);
    });
  }

  async keyById(keyId: string): Promise<MerchantKeyRecord | undefined> {
    return guarded(() => this.read(keyId));
  }

  async keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined> {
    return guarded(async () => {
      const keyId = await this.redis.get(this.keys.merchantKeyByHash(tokenHash));
      return keyId === null ? undefined : this.read(keyId);
    });
  }

  async updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined> {
    return guarded(async () => {
      if (!(await this.redis.exists(this.keys.merchantKey(keyId)))) return undefined;
      await this.redis.hset(this.keys.merchantKey(keyId), changing(patch));
      return this.read(keyId);
    });
  }

  async touchKey(keyId: string, at: number): Promise<void> {
    await guarded(() => this.redis.hset(this.keys.merchantKey(keyId), 'lastUsedAt', String(at)));
  }

  private async read(keyId: string): Promise<MerchantKeyRecord | undefined> {
    const fields = await this.redis.hgetall(this.keys.merchantKey(keyId));
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

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  MERCHANT_SCOPES,
  type MerchantKeyView,
  type MerchantScope,
  type NewMerchantKey,
} from '../../schemas/merchant-keys.ts';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import type { MerchantKeyRecord, MerchantKeyStore } from '../state/merchant-keys.ts';

/** A caller the merchant routes know: the environment's key, or a stored one, with what it may do. */
export interface MerchantCaller {
  keyId: string;
  scopes: readonly MerchantScope[];
}

/** Secret scanners recognise the prefix; 256 random bits after it. */
const PREFIX = 'kassa_mk_';
const TOUCH_EVERY_MS = 60_000;
export const ENVIRONMENT_KEY_ID = 'environment';
const sha256 = (value: string) => createHash('sha256').update(value).digest();
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The merchant's keys: KASSA_MERCHANT_KEY (every scope, changed in the settings) and the keys an
 * admin makes, each looked up in the store on every request (revocation needs no propagation) and
 * refused once expired or revoked. Rolling a key makes a new one with its name and scopes and gives
 * the old one an expiry, so the merchant's servers move over with no failed request.
 */
export class MerchantKeys {
  private readonly environmentDigest: Buffer;

  constructor(
    private readonly store: MerchantKeyStore,
    environmentKey: string,
  ) {
    this.environmentDigest = sha256(environmentKey);
  }

  /** Who a bearer secret is, or undefined when it opens nothing (unknown, expired, revoked). */
  async authenticate(secret: string, now = Date.now()): Promise<MerchantCaller | undefined> {
    if (timingSafeEqual(sha256(secret), this.environmentDigest))
      return { keyId: ENVIRONMENT_KEY_ID, scopes: MERCHANT_SCOPES };
    if (!secret.startsWith(PREFIX)) return undefined;
    const record = await this.store.keyByHash(sha256(secret).toString('hex'));
    if (!record || stateOf(record, now) !== 'active') return undefined;
    if (record.lastUsedAt === null || now - record.lastUsedAt >= TOUCH_EVERY_MS)
      await this.store.touchKey(record.keyId, now, TOUCH_EVERY_MS);
    return { keyId: record.keyId, scopes: record.scopes as MerchantScope[] };
  }

  async list(now = Date.now()): Promise<MerchantKeyView[]> {
    return (await this.store.listKeys()).map((record) => view(record, now));
  }

  async create(
    input: NewMerchantKey,
    now = Date.now(),
    rolledFrom: string | null = null,
  ): Promise<{ key: MerchantKeyView; secret: string }> {
    const secret = `${PREFIX}${randomBytes(32).toString('base64url')}`;
    const record: MerchantKeyRecord = {
      keyId: `mkey_${randomBytes(12).toString('base64url')}`,
      name: input.name,
      scopes: input.scopes,
      tokenHash: sha256(secret).toString('hex'),
      hint: `${secret.slice(0, PREFIX.length + 4)}…`,
      createdAt: now,
      expiresAt: input.expiresInDays === undefined ? null : now + input.expiresInDays * 86_400_000,
      lastUsedAt: null,
      revokedAt: null,
      rolledFrom,
    };
    await this.store.createKey(record);
    return { key: view(record, now), secret };
  }

  /** A new key in the old one's place; the old keeps working for `overlapSeconds`. */
  async roll(
    keyId: string,
    overlapSeconds: number,
    now = Date.now(),
  ): Promise<{ key: MerchantKeyView; secret: string; previous: MerchantKeyView }> {
    const old = await this.active(keyId, now);
    const created = await this.create({ name: old.name, scopes: old.scopes as MerchantScope[] }, now, old.keyId);
    const ends = now + overlapSeconds * 1000;
    const previous = await this.store.updateKey(keyId, {
      expiresAt: old.expiresAt === null ? ends : Math.min(old.expiresAt, ends),
    });
    return { ...created, previous: view(previous!, now) };
  }

  async revoke(keyId: string, now = Date.now()): Promise<MerchantKeyView> {
    await this.active(keyId, now);
    return view((await this.store.updateKey(keyId, { revokedAt: now }))!, now);
  }

  private async active(keyId: string, now: number): Promise<MerchantKeyRecord> {
    const record = await this.store.keyById(keyId);
    if (!record) throw new NotFoundError('Unknown merchant key');
    if (stateOf(record, now) !== 'active') throw new ConflictError(`The key is ${stateOf(record, now)} already`);
    return record;
  }
}

const stateOf = (record: MerchantKeyRecord, now: number): MerchantKeyView['state'] =>
  record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active';

function view(record: MerchantKeyRecord, now: number): MerchantKeyView {
  return {
    id: record.keyId,
    name: record.name,
    scopes: record.scopes as MerchantScope[],
    hint: record.hint,
    createdAt: new Date(record.createdAt).toISOString(),
    expiresAt: iso(record.expiresAt),
    lastUsedAt: iso(record.lastUsedAt),
    revokedAt: iso(record.revokedAt),
    state: stateOf(record, now),
    rolledFrom: record.rolledFrom,
  };
}

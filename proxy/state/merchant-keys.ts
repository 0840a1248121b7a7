/**
 * The merchant's API keys (docs/proxy.md#merchant-keys): named, scoped, with an optional expiry,
 * stored only as the SHA-256 of their secret. Every request looks its key up (no cache), so a
 * revocation holds on the next request of every instance sharing the store.
 */
export interface MerchantKeyRecord {
  keyId: string;
  name: string;
  scopes: string[];
  /** SHA-256 of the secret, hex. */
  tokenHash: string;
  /** The secret's first characters, for people to tell keys apart (`kassa_mk_3fQ…`). */
  hint: string;
  createdAt: number;
  /** Epoch ms after which it opens nothing; null: until revoked. */
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** The key this one replaced by a roll, if any. */
  rolledFrom: string | null;
}

export interface MerchantKeyStore {
  createKey(record: MerchantKeyRecord): Promise<void>;
  /** Newest first, revoked ones included. */
  listKeys(): Promise<MerchantKeyRecord[]>;
  keyById(keyId: string): Promise<MerchantKeyRecord | undefined>;
  keyByHash(tokenHash: string): Promise<MerchantKeyRecord | undefined>;
  /** Sets expiry or revocation; undefined when there is no such key. */
  updateKey(
    keyId: string,
    patch: Partial<Pick<MerchantKeyRecord, 'expiresAt' | 'revokedAt'>>,
  ): Promise<MerchantKeyRecord | undefined>;
  /** Records a use, at most once per `everyMs` (a key used a thousand times a second writes once a minute). */
  touchKey(keyId: string, at: number, everyMs: number): Promise<void>;
}

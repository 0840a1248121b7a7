import type { Redis } from 'ioredis';
import { isFinalPurchaseState, type PurchaseState } from '../../../schemas/onramp.ts';
import type { NewEvent } from '../outbox.ts';
import {
  COUNTS_AGAINST_LIMIT,
  decodePurchaseCursor,
  purchasePage,
  type CreatePurchaseOutcome,
  type PurchaseAuditRecord,
  type PurchaseChange,
  type PurchasePage,
  type PurchaseRecord,
  type PurchaseStore,
  type PurchaseUpdateOutcome,
  type QuoteRecord,
} from '../purchases.ts';
import { Cas, optimistically } from './cas.ts';
import { guarded } from './faults.ts';
import { idOfMember, indexMember, parse, type RedisKeys } from './keys.ts';
import { addEvents } from './outbox.ts';

/** A quote is kept a day past its expiry: long enough for a late retry to be told it expired. */
const QUOTE_KEPT_MS = 24 * 3_600_000;
const AUDIT_KEPT = 100;
/** At most this many index entries are read to fill one page of a filtered list. */
const LIST_SCAN_MAX = 20_000;

/**
 * Quotes and purchases for a fleet: each a JSON value, with lexicographic sorted sets as indexes
 * (newest first, still open, by state, by wallet) and keys for the lookups that must be unique (the
 * token, the checkout, the quote's one use, the mint transaction). A wallet's purchases of one coin
 * commit one at a time through a version key, so racing purchases on several instances cannot
 * together pass its limit.
 */
export class RedisPurchases implements PurchaseStore {
  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {}

  saveQuote(quote: QuoteRecord): Promise<void> {
    return guarded(async () => {
      const keep = Math.max(1, quote.expiresAt - Date.now()) + QUOTE_KEPT_MS;
      await this.redis.set(this.key.quote(quote.quoteId), JSON.stringify(quote), 'PX', keep);
    });
  }

  getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    return guarded(async () => parse<QuoteRecord>(await this.redis.get(this.key.quote(quoteId))));
  }

  /** Redis forgets quotes by itself (QUOTE_KEPT_MS). */
  async forgetQuotes(): Promise<void> {}

  create(input: {
    purchase: PurchaseRecord;
    idempotencyKey: string | null;
    limitCents: number | null;
    windowStart: number;
  }): Promise<CreatePurchaseOutcome> {
    const { purchase } = input;
    const quoteKey = this.key.purchaseByQuote(purchase.quoteId);
    const versionKey = this.key.walletVersion(purchase.wallet, purchase.symbol);
    return guarded(() =>
      optimistically<CreatePurchaseOutcome>(async () => {
        const [usedRaw, version] = await Promise.all([this.redis.get(quoteKey), this.redis.get(versionKey)]);
        const used = parse<{ purchaseId: string; idempotencyKey: string | null }>(usedRaw);
        if (used) {
          const earlier = await this.byId(used.purchaseId);
          return {
            value:
              earlier && input.idempotencyKey !== null && used.idempotencyKey === input.idempotencyKey
                ? { outcome: 'replay', purchase: earlier }
                : { outcome: 'quote-used' },
          };
        }
        if (input.limitCents !== null) {
          const usedCents = await this.walletTotal(purchase.wallet, purchase.symbol, input.windowStart);
          if (usedCents + purchase.tokensCents > input.limitCents) return { value: { outcome: 'limit', usedCents } };
        }
        const member = indexMember(purchase.createdAt, purchase.purchaseId);
        const cas = new Cas()
          .expect(quoteKey, null)
          .expect(versionKey, version)
          .set(versionKey, String(Number(version ?? 0) + 1))
          .set(quoteKey, JSON.stringify({ purchaseId: purchase.purchaseId, idempotencyKey: input.idempotencyKey }))
          .set(this.key.purchase(purchase.purchaseId), JSON.stringify(purchase))
          .set(this.key.purchaseByToken(purchase.purchaseToken), purchase.purchaseId)
          .set(this.key.purchaseByCheckout(purchase.checkoutId), purchase.purchaseId)
          .zadd(this.key.purchasesAll(), member)
          .zadd(this.key.purchasesByState(purchase.state), member)
          .zadd(this.key.purchasesByWallet(purchase.wallet), member);
        if (!isFinalPurchaseState(purchase.state)) cas.zadd(this.key.purchasesOpen(), member);
        return (await cas.commit(this.redis)) ? { value: { outcome: 'created' } } : undefined;
      }),
    );
  }

  usedByWallet(wallet: string, symbol: string, since: number): Promise<number> {
    return guarded(() => this.walletTotal(wallet, symbol, since));
  }

  private async walletTotal(wallet: string, symbol: string, since: number): Promise<number> {
    const members = await this.redis.zrangebylex(
      this.key.purchasesByWallet(wallet),
      `(${indexMember(since, '~')}`,
      '+',
    );
    const purchases = await this.many(members.map(idOfMember));
    return purchases.reduce(
      (sum, purchase) =>
        purchase.symbol === symbol && purchase.createdAt > since && COUNTS_AGAINST_LIMIT(purchase.state)
          ? sum + purchase.tokensCents
          : sum,
      0,
    );
  }

  byId(purchaseId: string): Promise<PurchaseRecord | undefined> {
    return guarded(async () => parse<PurchaseRecord>(await this.redis.get(this.key.purchase(purchaseId))));
  }

  byToken(purchaseToken: string): Promise<PurchaseRecord | undefined> {
    return this.byPointer(this.key.purchaseByToken(purchaseToken));
  }

  byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined> {
    return this.byPointer(this.key.purchaseByCheckout(checkoutId));
  }

  private byPointer(pointer: string): Promise<PurchaseRecord | undefined> {
    return guarded(async () => {
      const id = await this.redis.get(pointer);
      return id === null ? undefined : this.byId(id);
    });
  }

  async list(query: {
    state?: PurchaseState | undefined;
    wallet?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PurchasePage> {
    // A bad cursor is the caller's mistake, decoded before Redis is asked (not a store fault).
    const cursor = query.cursor ? decodePurchaseCursor(query.cursor) : undefined;
    return guarded(async () => {
      const index = query.wallet
        ? this.key.purchasesByWallet(query.wallet)
        : query.state
          ? this.key.purchasesByState(query.state)
          : this.key.purchasesAll();
      let upper = cursor ? `(${indexMember(cursor.createdAt, cursor.purchaseId)}` : '+';
      const purchases: PurchaseRecord[] = [];
      let scanned = 0;
      while (purchases.length <= query.limit && scanned < LIST_SCAN_MAX) {
        const batch = await this.redis.zrevrangebylex(index, upper, '-', 'LIMIT', 0, 200);
        if (batch.length === 0) break;
        scanned += batch.length;
        upper = `(${batch[batch.length - 1]!}`;
        for (const purchase of await this.many(batch.map(idOfMember)))
          if (!query.state || purchase.state === query.state) purchases.push(purchase);
      }
      return purchasePage(purchases, query.limit);
    });
  }

  unsettled(limit: number): Promise<PurchaseRecord[]> {
    return guarded(async () => {
      const members = await this.redis.zrangebylex(this.key.purchasesOpen(), '-', '+', 'LIMIT', 0, limit);
      return this.many(members.map(idOfMember));
    });
  }

  private async many(ids: string[]): Promise<PurchaseRecord[]> {
    if (ids.length === 0) return [];
    const values = await this.redis.mget(...ids.map((id) => this.key.purchase(id)));
    return values.flatMap((raw) => (raw === null ? [] : [JSON.parse(raw) as PurchaseRecord]));
  }

  update(
    purchaseId: string,
    from: readonly PurchaseState[],
    change: PurchaseChange,
    effects: { events?: (next: PurchaseRecord) => NewEvent[]; audit?: PurchaseAuditRecord } = {},
  ): Promise<PurchaseUpdateOutcome> {
    const purchaseKey = this.key.purchase(purchaseId);
    return guarded(() =>
      optimistically<PurchaseUpdateOutcome>(async () => {
        const raw = await this.redis.get(purchaseKey);
        const current = parse<PurchaseRecord>(raw);
        if (!current || !from.includes(current.state)) return { value: { outcome: 'moved', purchase: current } };
        const next: PurchaseRecord = { ...current, ...change, revision: current.revision + 1 };
        const cas = new Cas().expect(purchaseKey, raw).set(purchaseKey, JSON.stringify(next));
        if (next.txHash && next.txHash !== current.txHash) {
          const txKey = this.key.purchaseByTx(next.txHash);
          const holder = await this.redis.get(txKey);
          if (holder !== null && holder !== purchaseId) return { value: { outcome: 'tx-taken' } };
          cas.expect(txKey, holder).set(txKey, purchaseId);
        }
        if (next.state !== current.state) {
          const member = indexMember(current.createdAt, purchaseId);
          cas
            .zrem(this.key.purchasesByState(current.state), member)
            .zadd(this.key.purchasesByState(next.state), member);
          if (isFinalPurchaseState(next.state)) cas.zrem(this.key.purchasesOpen(), member);
          else cas.zadd(this.key.purchasesOpen(), member);
        }
        if (effects.events) addEvents(cas, this.key, effects.events(next));
        if (effects.audit)
          cas.rpushCapped(this.key.purchaseAudit(purchaseId), JSON.stringify(effects.audit), AUDIT_KEPT);
        return (await cas.commit(this.redis)) ? { value: { outcome: 'updated', purchase: next } } : undefined;
      }),
    );
  }

  lease(purchaseId: string, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const leaseKey = this.key.purchaseLease(purchaseId);
    return guarded(async () => {
      if ((await this.redis.set(leaseKey, holder, 'PX', leaseMs, 'NX')) === 'OK') return true;
      // Held already: by this holder, it is extended.
      return new Cas().expect(leaseKey, holder).setExpiring(leaseKey, holder, leaseMs).commit(this.redis);
    });
  }

  unlease(purchaseId: string, holder: string): Promise<void> {
    const leaseKey = this.key.purchaseLease(purchaseId);
    return guarded(async () => {
      await new Cas().expect(leaseKey, holder).del(leaseKey).commit(this.redis);
    });
  }

  audit(purchaseId: string): Promise<PurchaseAuditRecord[]> {
    return guarded(async () =>
      (await this.redis.lrange(this.key.purchaseAudit(purchaseId), 0, -1)).map(
        (entry) => JSON.parse(entry) as PurchaseAuditRecord,
      ),
    );
  }
}

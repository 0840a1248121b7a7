import type { PurchaseState } from '../../../schemas/onramp.ts';
import type { NewEvent } from '../outbox.ts';
import {
  COUNTS_AGAINST_LIMIT,
  decodePurchaseCursor,
  dueAt,
  meetsExpectation,
  purchasePage,
  WORK_STATES,
  type CreatePurchaseOutcome,
  type PurchaseAuditRecord,
  type PurchaseChange,
  type PurchaseExpectation,
  type PurchasePage,
  type PurchaseRecord,
  type PurchaseStore,
  type PurchaseUpdateOutcome,
  type QuoteRecord,
} from '../purchases.ts';
import { Cas } from './cas.ts';
import { idOfMember, indexMember, parse } from './keys.ts';
import { newestFirst } from './newest-first.ts';
import { RedisRecords, unchanged } from './records.ts';

/** A quote is kept a day past its expiry: long enough for a late retry to be told it expired. */
const QUOTE_KEPT_MS = 24 * 3_600_000;
const AUDIT_KEPT = 100;
/** At most this many index entries are read to fill one page of a filtered list. */
const LIST_SCAN_MAX = 20_000;

/**
 * A purchase as this version reads it: one kept by the previous version has its current order only
 * (each earlier one was stopped before its retry was allowed, so it cannot mint) and no look planned.
 */
const thisVersion = (stored: PurchaseRecord): PurchaseRecord => ({
  ...stored,
  orderIds: stored.orderIds ?? (stored.orderId ? [stored.orderId] : []),
  nextLookAt: stored.nextLookAt ?? null,
});
/** The purchases' layout version (see `upgrade`). */
const LAYOUT = '2';

/**
 * Quotes and purchases for a fleet: each a JSON value, with lexicographic sorted sets as indexes
 * (newest first, still open, by state, by wallet) and keys for the lookups that must be unique (the
 * token, the checkout, the quote's one use, the mint transaction). A wallet's purchases of one coin
 * commit one at a time through a version key, so racing purchases on several instances cannot
 * together pass its limit.
 */
export class RedisPurchases extends RedisRecords implements PurchaseStore {
  private upgraded: Promise<void> | undefined;

  async saveQuote(quote: QuoteRecord): Promise<void> {
    const keep = Math.max(1, quote.expiresAt - Date.now()) + QUOTE_KEPT_MS;
    await this.redis.set(this.key.quote(quote.quoteId), JSON.stringify(quote), 'PX', keep);
  }

  getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    return this.read(this.key.quote(quoteId));
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
    return this.transact<CreatePurchaseOutcome>(async (cas) => {
      const [usedRaw, version] = await Promise.all([this.redis.get(quoteKey), this.redis.get(versionKey)]);
      const used = parse<{ purchaseId: string; idempotencyKey: string | null }>(usedRaw);
      if (used) {
        const earlier = await this.byId(used.purchaseId);
        return unchanged(
          earlier && input.idempotencyKey !== null && used.idempotencyKey === input.idempotencyKey
            ? { outcome: 'replay', purchase: earlier }
            : { outcome: 'quote-used' },
        );
      }
      if (input.limitCents !== null) {
        const usedCents = await this.usedByWallet(purchase.wallet, purchase.symbol, input.windowStart);
        if (usedCents + purchase.tokensCents > input.limitCents) return unchanged({ outcome: 'limit', usedCents });
      }
      const member = indexMember(purchase.createdAt, purchase.purchaseId);
      cas
        .expect(quoteKey, null)
        .bump(versionKey, version)
        .set(quoteKey, JSON.stringify({ purchaseId: purchase.purchaseId, idempotencyKey: input.idempotencyKey }))
        .set(this.key.purchase(purchase.purchaseId), JSON.stringify(purchase))
        .set(this.key.purchaseByToken(purchase.purchaseToken), purchase.purchaseId)
        .set(this.key.purchaseByCheckout(purchase.checkoutId), purchase.purchaseId)
        .zadd(this.key.purchasesAll(), member)
        .zadd(this.key.purchasesByState(purchase.state), member)
        .zadd(this.key.purchasesByWallet(purchase.wallet), member);
      const due = dueAt(purchase);
      if (due !== null) cas.zaddScored(this.key.purchasesDue(), member, due);
      return { outcome: 'created' };
    });
  }

  async usedByWallet(wallet: string, symbol: string, since: number): Promise<number> {
    const after = `(${indexMember(since, '~')}`;
    const members = await this.redis.zrangebylex(this.key.purchasesByWallet(wallet), after, '+');
    const purchases = await this.many(members.map(idOfMember));
    const counted = purchases.filter(
      (purchase) => purchase.symbol === symbol && purchase.createdAt > since && COUNTS_AGAINST_LIMIT(purchase.state),
    );
    return counted.reduce((sum, purchase) => sum + purchase.tokensCents, 0);
  }

  async byId(purchaseId: string): Promise<PurchaseRecord | undefined> {
    const stored = await this.read<PurchaseRecord>(this.key.purchase(purchaseId));
    return stored && thisVersion(stored);
  }

  byToken(purchaseToken: string): Promise<PurchaseRecord | undefined> {
    return this.byPointer(this.key.purchaseByToken(purchaseToken));
  }

  byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined> {
    return this.byPointer(this.key.purchaseByCheckout(checkoutId));
  }

  private async byPointer(pointer: string): Promise<PurchaseRecord | undefined> {
    const id = await this.redis.get(pointer);
    return id === null ? undefined : this.byId(id);
  }

  async list(query: {
    state?: PurchaseState | undefined;
    wallet?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PurchasePage> {
    const cursor = query.cursor ? decodePurchaseCursor(query.cursor) : undefined;
    const found = await newestFirst<PurchaseRecord>(this.redis, {
      index: query.wallet
        ? this.key.purchasesByWallet(query.wallet)
        : query.state
          ? this.key.purchasesByState(query.state)
          : this.key.purchasesAll(),
      valueKey: this.key.purchase,
      after: cursor && indexMember(cursor.createdAt, cursor.purchaseId),
      limit: query.limit,
      keep: (purchase) => !query.state || purchase.state === query.state,
      scanMax: LIST_SCAN_MAX,
    });
    return purchasePage(found.map(thisVersion), query.limit);
  }

  async unsettled(states: readonly PurchaseState[], limit: number): Promise<PurchaseRecord[]> {
    // Each state's index is oldest first; their members sort like (createdAt, id) across indexes too.
    const members = await Promise.all(
      states.map((state) => this.redis.zrangebylex(this.key.purchasesByState(state), '-', '+', 'LIMIT', 0, limit)),
    );
    return this.many(members.flat().sort().slice(0, limit).map(idOfMember));
  }

  async due(now: number, limit: number): Promise<PurchaseRecord[]> {
    await this.upgrade();
    const members = await this.redis.zrangebyscore(this.key.purchasesDue(), '-inf', now, 'LIMIT', 0, limit);
    return this.many(members.map(idOfMember));
  }

  /**
   * Brings purchases kept by the previous version forward, once per store: those with work to do
   * join the due index, each checked against its record as read (one changed meanwhile was indexed
   * by its own update), and the previous version's index of unfinished purchases goes.
   */
  private upgrade(): Promise<void> {
    this.upgraded ??= (async () => {
      if ((await this.redis.get(this.key.purchasesLayout())) === LAYOUT) return;
      for (const state of WORK_STATES)
        for (const member of await this.redis.zrange(this.key.purchasesByState(state), 0, -1)) {
          const purchaseKey = this.key.purchase(idOfMember(member));
          await this.transact(async (cas) => {
            const purchase = await this.watch<PurchaseRecord>(cas, purchaseKey);
            const due = purchase ? dueAt(thisVersion(purchase)) : null;
            if (due === null) return unchanged(undefined);
            cas.zaddScored(this.key.purchasesDue(), member, due);
          });
        }
      await this.redis.del(this.key.purchasesOpen());
      await this.redis.set(this.key.purchasesLayout(), LAYOUT);
    })().catch((error: unknown) => {
      this.upgraded = undefined;
      throw error;
    });
    return this.upgraded;
  }

  private async many(ids: string[]): Promise<PurchaseRecord[]> {
    return (await this.readAll<PurchaseRecord>(ids.map(this.key.purchase))).map(thisVersion);
  }

  update(
    purchaseId: string,
    expected: PurchaseExpectation,
    change: PurchaseChange,
    effects: { events?: (next: PurchaseRecord) => NewEvent[]; audit?: PurchaseAuditRecord } = {},
  ): Promise<PurchaseUpdateOutcome> {
    const purchaseKey = this.key.purchase(purchaseId);
    return this.transact<PurchaseUpdateOutcome>(async (cas) => {
      const stored = await this.watch<PurchaseRecord>(cas, purchaseKey);
      const current = stored && thisVersion(stored);
      if (!current || !meetsExpectation(current, expected)) return unchanged({ outcome: 'moved', purchase: current });
      const next: PurchaseRecord = { ...current, ...change, revision: current.revision + 1 };
      cas.set(purchaseKey, JSON.stringify(next));
      if (next.txHash && next.txHash !== current.txHash) {
        const txKey = this.key.purchaseByTx(next.txHash);
        const holder = await this.redis.get(txKey);
        if (holder !== null && holder !== purchaseId) return unchanged({ outcome: 'tx-taken' });
        cas.expect(txKey, holder).set(txKey, purchaseId);
      }
      const member = indexMember(current.createdAt, purchaseId);
      if (next.state !== current.state)
        cas.zrem(this.key.purchasesByState(current.state), member).zadd(this.key.purchasesByState(next.state), member);
      const due = dueAt(next);
      if (due === null) cas.zrem(this.key.purchasesDue(), member);
      else cas.zaddScored(this.key.purchasesDue(), member, due);
      if (effects.events) await this.addEvents(cas, effects.events(next));
      if (effects.audit) cas.rpushCapped(this.key.purchaseAudit(purchaseId), JSON.stringify(effects.audit), AUDIT_KEPT);
      return { outcome: 'updated', purchase: next };
    });
  }

  async lease(purchaseId: string, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const leaseKey = this.key.purchaseLease(purchaseId);
    if ((await this.redis.set(leaseKey, holder, 'PX', leaseMs, 'NX')) === 'OK') return true;
    // Held already: by this holder, it is extended.
    return new Cas().expect(leaseKey, holder).setExpiring(leaseKey, holder, leaseMs).commit(this.redis);
  }

  async unlease(purchaseId: string, holder: string): Promise<void> {
    const leaseKey = this.key.purchaseLease(purchaseId);
    await new Cas().expect(leaseKey, holder).del(leaseKey).commit(this.redis);
  }

  /** Redis forgets a lease when it runs out (`PX`), so what is there is held now. */
  leaseHolder(purchaseId: string): Promise<string | null> {
    return this.redis.get(this.key.purchaseLease(purchaseId));
  }

  audit(purchaseId: string): Promise<PurchaseAuditRecord[]> {
    return this.readList(this.key.purchaseAudit(purchaseId));
  }
}

import type { Redis } from 'ioredis';
import { isTerminalStatus, PAYMENT_STATUSES } from '../../../schemas/pay.ts';
import { Cas } from './cas.ts';
import { RedisDestinations } from './destinations.ts';
import { idOfMember, indexMember, parse, redisKeys, timeOfMember } from './keys.ts';
import { RedisLinks } from './links.ts';
import { RedisOutbox } from './outbox.ts';
import { RedisApprovals } from './approvals.ts';
import { RedisAudit } from './audit.ts';
import { RedisMerchantKeys } from './merchant-keys.ts';
import { RedisOperators } from './operators.ts';
import { RedisPurchases } from './purchases.ts';
import { LAST_WEBHOOK_KEPT_SECONDS, RedisReconciliation } from './reconciliation.ts';
import { RedisRecords, unchanged } from './records.ts';
import type { PaymentEventRule } from '../outbox.ts';
import {
  decideAttempt,
  decodeCursor,
  encodeCursor,
  mergeUpdate,
  type Attempt,
  type BeginAttempt,
  type Checkout,
  type CheckoutClaim,
  type CheckoutKey,
  CHECKOUT_KEY_KEPT_MS,
  type Payment,
  matchesSearch,
  PENDING_AGE_BUCKETS,
  type PaymentPage,
  type PaymentSearch,
  type PaymentStats,
  type PaymentUpdate,
  type Store,
  StoreUnavailableError,
} from '../store.ts';

const WEBHOOK_MEMORY_SECONDS = 30 * 24 * 3600;
/** At most this many index entries are read to fill one page of a search. */
const SEARCH_SCAN_MAX = 20_000;

/** A payment without `lastCheckedAt`, which lives in a key of its own (see below). */
type StoredPayment = Omit<Payment, 'lastCheckedAt'>;

/** Payments recorded before revisions were kept count as revision 1; fields added since are null in older ones. */
const revised = (payment: StoredPayment): StoredPayment => ({
  ...payment,
  revision: payment.revision ?? 1,
  endToEndId: payment.endToEndId ?? null,
  returnUrl: payment.returnUrl ?? null,
});

/**
 * The store for a fleet of proxies: every record a JSON value under `<prefix>…`, with lexicographic
 * sorted sets as indexes (newest first, by status, still open). Writes that must be atomic are
 * optimistic transactions (cas.ts) decided by the same rules as the SQL store. When a payment
 * was last read upstream is kept apart from the payment: it changes on every read, and would
 * otherwise make every transaction on the payment retry.
 */
export class RedisStore extends RedisRecords implements Store {
  readonly outbox = new RedisOutbox(this.redis, this.key, this.routing);
  readonly destinations = new RedisDestinations(this.redis, this.key);
  readonly reconciliation = new RedisReconciliation(this.redis, this.key);
  readonly purchases = new RedisPurchases(this.redis, this.key, this.routing);
  readonly links = new RedisLinks(this.redis, this.key, this.routing);
  readonly operators = new RedisOperators(this.redis, this.key);
  readonly merchantKeys = new RedisMerchantKeys(this.redis, this.key);
  readonly approvals = new RedisApprovals(this.redis, this.key);
  readonly audit = new RedisAudit(this.redis, this.key);

  constructor(redis: Redis, prefix: string) {
    super(redis, redisKeys(prefix));
  }

  async insertCheckout(checkout: Checkout, key?: CheckoutKey): Promise<CheckoutClaim> {
    const checkoutKey = this.key.checkout(checkout.checkoutId);
    const idempotencyKey = key && this.key.checkoutIdempotency(key.idempotencyKey);
    const cas = new Cas()
      .expect(checkoutKey, null)
      .set(checkoutKey, JSON.stringify(checkout))
      .zaddScored(this.key.expiring(), checkout.checkoutId, checkout.expiresAt);
    if (key && idempotencyKey) {
      const claim = JSON.stringify({ checkoutId: checkout.checkoutId, fingerprint: key.fingerprint });
      cas.expect(idempotencyKey, null).setExpiring(idempotencyKey, claim, CHECKOUT_KEY_KEPT_MS);
    }
    if (await cas.commit(this.redis)) return { created: true };
    const seen = idempotencyKey && (await this.read<{ checkoutId: string; fingerprint: string }>(idempotencyKey));
    // The key expired between the commit and the read (a retry makes the checkout), or the id is taken.
    if (!seen) throw new StoreUnavailableError(new Error(`checkout ${checkout.checkoutId} exists`));
    return { created: false, ...seen };
  }

  getCheckout(checkoutId: string): Promise<Checkout | undefined> {
    return this.read(this.key.checkout(checkoutId));
  }

  beginAttempt(input: Parameters<Store['beginAttempt']>[0]): Promise<BeginAttempt> {
    const attemptKey = this.key.attempt(input.idempotencyKey);
    return this.transact<BeginAttempt>(async (cas) => {
      const [existingRaw = null, checkoutRaw = null] = input.checkoutId
        ? await this.redis.mget(attemptKey, this.key.checkout(input.checkoutId))
        : [await this.redis.get(attemptKey)];
      const checkout = parse<Checkout>(checkoutRaw);
      const currentKey = checkout?.currentAttempt ? this.key.attempt(checkout.currentAttempt) : undefined;
      const current = currentKey ? await this.watch<Attempt>(cas, currentKey) : undefined;
      const payment = current?.transactionId
        ? await this.watch<StoredPayment>(cas, this.key.payment(current.transactionId))
        : undefined;
      const decision = decideAttempt({
        existing: parse<Attempt>(existingRaw),
        current,
        currentStatus: payment?.status,
        now: input.now,
        staleAfterMs: input.staleAfterMs,
      });
      if (decision.outcome !== 'started') return unchanged(decision);
      const attempt: Attempt = {
        idempotencyKey: input.idempotencyKey,
        fingerprint: input.fingerprint,
        checkoutId: input.checkoutId,
        statusToken: input.statusToken,
        state: 'pending',
        transactionId: null,
        createdAt: input.now,
      };
      cas.expect(attemptKey, decision.discardExisting ? existingRaw : null).set(attemptKey, JSON.stringify(attempt));
      if (checkout) {
        const checkoutKey = this.key.checkout(checkout.checkoutId);
        cas
          .expect(checkoutKey, checkoutRaw)
          .set(checkoutKey, JSON.stringify({ ...checkout, currentAttempt: input.idempotencyKey }));
        // The stale attempt may be this very key's, just replaced above: not deleted then.
        if (decision.discardCurrent && currentKey && currentKey !== attemptKey) cas.del(currentKey);
      }
      return { outcome: 'started' };
    });
  }

  getAttempt(idempotencyKey: string): Promise<Attempt | undefined> {
    return this.read(this.key.attempt(idempotencyKey));
  }

  abandonAttempt(idempotencyKey: string): Promise<void> {
    const attemptKey = this.key.attempt(idempotencyKey);
    return this.transact(async (cas) => {
      const attempt = await this.watch<Attempt>(cas, attemptKey);
      if (attempt?.state !== 'pending') return unchanged(undefined);
      cas.del(attemptKey);
      if (attempt.checkoutId) {
        const checkoutKey = this.key.checkout(attempt.checkoutId);
        const checkoutRaw = await this.redis.get(checkoutKey);
        const checkout = parse<Checkout>(checkoutRaw);
        if (checkout?.currentAttempt === idempotencyKey)
          cas.expect(checkoutKey, checkoutRaw).set(checkoutKey, JSON.stringify({ ...checkout, currentAttempt: null }));
      }
    });
  }

  recordPayment(payment: Payment): Promise<void> {
    const attemptKey = this.key.attempt(payment.idempotencyKey);
    const { lastCheckedAt, ...stored } = payment;
    return this.transact(async (cas) => {
      const attempt = await this.watch<Attempt>(cas, attemptKey);
      const member = indexMember(payment.createdAt, payment.transactionId);
      cas
        .set(this.key.payment(payment.transactionId), JSON.stringify(stored))
        .set(this.key.token(payment.statusToken), payment.transactionId)
        .zadd(this.key.all(), member)
        .zadd(this.key.status(payment.status), member)
        .zadd(this.key.byReference(payment.reference), member);
      if (payment.checkoutId) cas.zadd(this.key.byCheckout(payment.checkoutId), member);
      if (lastCheckedAt !== null) cas.set(this.key.checked(payment.transactionId), String(lastCheckedAt));
      if (!isTerminalStatus(payment.status)) cas.zadd(this.key.open(), member);
      if (attempt)
        cas.set(attemptKey, JSON.stringify({ ...attempt, state: 'succeeded', transactionId: payment.transactionId }));
    });
  }

  async paymentByToken(statusToken: string): Promise<Payment | undefined> {
    const transactionId = await this.redis.get(this.key.token(statusToken));
    return transactionId === null ? undefined : this.paymentById(transactionId);
  }

  async paymentById(transactionId: string): Promise<Payment | undefined> {
    return (await this.load([transactionId]))[0];
  }

  applyUpdate(
    transactionId: string,
    update: PaymentUpdate,
    checkedAt: number,
    rule?: PaymentEventRule,
  ): Promise<Payment | undefined> {
    const paymentKey = this.key.payment(transactionId);
    return this.transact(async (cas) => {
      const stored = await this.watch<StoredPayment>(cas, paymentKey);
      if (!stored) return unchanged(undefined);
      const current = revised(stored);
      const next = mergeUpdate({ ...current, lastCheckedAt: null }, update);
      const checked = String(checkedAt);
      if (!next) {
        await this.redis.set(this.key.checked(transactionId), checked);
        return unchanged(undefined);
      }
      const { lastCheckedAt: _, ...changed } = next;
      const member = indexMember(current.createdAt, transactionId);
      cas.set(paymentKey, JSON.stringify(changed)).set(this.key.checked(transactionId), checked);
      if (rule) {
        const checkout = next.checkoutId ? await this.getCheckout(next.checkoutId) : undefined;
        await this.addEvents(cas, rule({ ...current, lastCheckedAt: null }, next, checkout));
      }
      if (next.status !== current.status)
        cas.zrem(this.key.status(current.status), member).zadd(this.key.status(next.status), member);
      if (isTerminalStatus(next.status)) cas.zrem(this.key.open(), member);
      return { ...next, lastCheckedAt: checkedAt };
    });
  }

  async markChecked(transactionId: string, checkedAt: number): Promise<void> {
    await this.redis.set(this.key.checked(transactionId), String(checkedAt));
  }

  async listPayments(query: PaymentSearch): Promise<PaymentPage> {
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    // The narrowest index that holds every match; time bounds are ranges of its members.
    const index = query.checkoutId
      ? this.key.byCheckout(query.checkoutId)
      : query.reference
        ? this.key.byReference(query.reference)
        : query.status
          ? this.key.status(query.status)
          : this.key.all();
    const min = query.from === undefined ? '-' : `[${indexMember(query.from, '')}`;
    let max = after
      ? `(${indexMember(after.createdAt, after.transactionId)}`
      : query.to === undefined
        ? '+'
        : `(${indexMember(query.to, '')}`;
    const payments: Payment[] = [];
    let scanned = 0;
    let more = false;
    let lastSeen: string | undefined;
    // The index and the records are read one after the other: a payment that changed in between
    // is checked against the search as it is now. The cursor is an index position.
    while (!more && scanned < SEARCH_SCAN_MAX) {
      const batch = Math.min(1_000, Math.max(query.limit + 1, 100));
      const members = await this.redis.zrevrangebylex(index, max, min, 'LIMIT', 0, batch);
      if (members.length === 0) break;
      scanned += members.length;
      const loaded = new Map((await this.load(members.map(idOfMember))).map((p) => [p.transactionId, p]));
      for (const member of members) {
        const payment = loaded.get(idOfMember(member));
        if (payment && matchesSearch(payment, query)) {
          if (payments.length === query.limit) {
            more = true;
            break;
          }
          payments.push(payment);
        }
        lastSeen = member;
      }
      if (members.length < batch) break;
      max = `(${members[members.length - 1]!}`;
    }
    // A page cut short by the scan limit still offers the rest, from where the scan stopped.
    const resumeAt = more ? payments[payments.length - 1] : scanned >= SEARCH_SCAN_MAX ? lastSeen : undefined;
    return {
      payments,
      nextCursor:
        resumeAt === undefined
          ? null
          : typeof resumeAt === 'string'
            ? encodeCursor({ createdAt: timeOfMember(resumeAt), transactionId: idOfMember(resumeAt) })
            : encodeCursor(resumeAt),
    };
  }

  async paymentStats(now: number): Promise<PaymentStats> {
    const counts = await Promise.all(PAYMENT_STATUSES.map((status) => this.redis.zcard(this.key.status(status))));
    const byStatus = Object.fromEntries(PAYMENT_STATUSES.map((status, index) => [status, counts[index] ?? 0]));
    const pendingByAge = {} as PaymentStats['pendingByAge'];
    let lower = 0;
    // The open index's members begin with their creation time: each bucket is one range count.
    for (const { label, below } of PENDING_AGE_BUCKETS) {
      const min = below === Infinity ? '-' : `(${indexMember(now - below, '~')}`;
      const max = `[${indexMember(now - lower, '~')}`;
      pendingByAge[label] = await this.redis.zlexcount(this.key.open(), min, max);
      lower = below;
    }
    return { byStatus, pendingByAge };
  }

  async pendingPayments(limit: number): Promise<Payment[]> {
    const members = await this.redis.zrangebylex(this.key.open(), '-', '+', 'LIMIT', 0, limit);
    return (await this.load(members.map(idOfMember))).filter((payment) => !isTerminalStatus(payment.status));
  }

  async recordWebhook(event: Parameters<Store['recordWebhook']>[0]): Promise<boolean> {
    const webhookKey = this.key.webhook(event.dedupeKey);
    const fresh =
      (await this.redis.set(webhookKey, JSON.stringify(event), 'EX', WEBHOOK_MEMORY_SECONDS, 'NX')) === 'OK';
    // The payment's last webhook, for the operator of a payment that cannot be verified.
    if (fresh && event.transactionId) {
      const last = JSON.stringify({ receivedAt: event.receivedAt, body: event.body });
      await this.redis.set(this.key.lastWebhook(event.transactionId), last, 'EX', LAST_WEBHOOK_KEPT_SECONDS);
    }
    return fresh;
  }

  /** A write, as payments need: a read-only replica or a Redis out of memory would still answer PING. */
  async ping(): Promise<void> {
    await this.redis.set(this.key.heartbeat(), String(Date.now()), 'PX', 60_000);
  }

  /** The connection belongs to the backend (open-backend.ts): Redis's coordination closes it. */
  async close(): Promise<void> {}

  private async load(transactionIds: string[]): Promise<Payment[]> {
    if (transactionIds.length === 0) return [];
    const values = await this.redis.mget(transactionIds.flatMap((id) => [this.key.payment(id), this.key.checked(id)]));
    const payments: Payment[] = [];
    for (let i = 0; i < transactionIds.length; i++) {
      const stored = parse<StoredPayment>(values[2 * i] ?? null);
      const checked = values[2 * i + 1];
      if (stored) payments.push({ ...revised(stored), lastCheckedAt: checked ? Number(checked) : null });
    }
    return payments;
  }
}

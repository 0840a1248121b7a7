import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import type { NewEvent } from '../../proxy/state/outbox.ts';
import { InvalidPurchaseCursorError, type PurchaseRecord } from '../../proxy/state/purchases.ts';
import type { Store } from '../../proxy/state/store.ts';
import { STORE_BACKENDS } from '../support/store-backends.ts';
import { purchase, quote } from '../support/store-records.ts';

const DAY = 24 * 3_600_000;

const event = (purchaseId: string): NewEvent => ({
  eventId: `evt_${randomBytes(12).toString('base64url')}`,
  type: 'onramp.paid',
  transactionId: null,
  checkoutId: null,
  sequence: 2,
  createdAt: Date.now(),
  payload: JSON.stringify({ purchaseId }),
});

/** One contract, every store: the on-ramp relies on the same rules whichever backend keeps its purchases. */
for (const backend of STORE_BACKENDS) {
  describe(`purchase store contract: ${backend.name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await backend.open()));
    after(() => close());

    const create = (made: PurchaseRecord, options: { key?: string | null; limit?: number | null } = {}) =>
      store.purchases.create({
        purchase: made,
        idempotencyKey: options.key ?? null,
        limitCents: options.limit ?? null,
        windowStart: Date.now() - DAY,
      });

    it('keeps quotes, and forgets those expired before a time', async () => {
      const kept = quote();
      const old = quote({ expiresAt: Date.now() - 2 * DAY });
      await store.purchases.saveQuote(kept);
      await store.purchases.saveQuote(old);
      assert.deepEqual(await store.purchases.getQuote(kept.quoteId), kept);
      await store.purchases.forgetQuotes(Date.now() - DAY);
      assert.deepEqual(await store.purchases.getQuote(kept.quoteId), kept);
      // Redis forgets expired quotes by itself; SQLite when asked. Either way this one is gone or going.
      const forgotten = await store.purchases.getQuote(old.quoteId);
      assert.ok(forgotten === undefined || backend.name === 'Redis');
    });

    it('uses a quote once; the same Idempotency-Key answers the purchase it made', async () => {
      const made = purchase();
      assert.deepEqual(await create(made, { key: 'key-one-purchase' }), { outcome: 'created' });
      const replay = await create(purchase({ quoteId: made.quoteId }), { key: 'key-one-purchase' });
      assert.equal(replay.outcome, 'replay');
      assert.equal(replay.outcome === 'replay' && replay.purchase.purchaseId, made.purchaseId);
      assert.deepEqual(await create(purchase({ quoteId: made.quoteId }), { key: 'another-key-1' }), {
        outcome: 'quote-used',
      });
      assert.deepEqual(await create(purchase({ quoteId: made.quoteId })), { outcome: 'quote-used' });
      assert.deepEqual(await store.purchases.byId(made.purchaseId), made);
      assert.deepEqual(await store.purchases.byToken(made.purchaseToken), made);
      assert.deepEqual(await store.purchases.byCheckout(made.checkoutId), made);
      assert.equal(await store.purchases.byId('pur_missing'), undefined);
    });

    it("holds a wallet's limit when 30 purchases race for it", async () => {
      const wallet = Wallet.createRandom().address;
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, () => create(purchase({ wallet, tokensCents: 100 }), { limit: 1000 })),
      );
      assert.equal(outcomes.filter((outcome) => outcome.outcome === 'created').length, 10);
      assert.ok(outcomes.every((outcome) => outcome.outcome === 'created' || outcome.outcome === 'limit'));
      assert.equal(await store.purchases.usedByWallet(wallet, 'eEUR', Date.now() - DAY), 1000);
      assert.equal(await store.purchases.usedByWallet(wallet, 'eGBR', Date.now() - DAY), 0, 'per coin');
    });

    it('counts against the limit only what took money and kept it, within the window', async () => {
      const wallet = Wallet.createRandom().address;
      const states = ['awaiting_payment', 'paid', 'delivered', 'failed', 'refunded', 'delayed'] as const;
      for (const state of states) await create(purchase({ wallet, state, tokensCents: 100 }));
      await create(purchase({ wallet, tokensCents: 5000, createdAt: Date.now() - DAY - 1_000 }));
      assert.equal(await store.purchases.usedByWallet(wallet, 'eEUR', Date.now() - DAY), 400);
    });

    it('changes a purchase only from the states given, with its events and audit in the same step', async () => {
      const made = purchase();
      await create(made);
      const moved = await store.purchases.update(made.purchaseId, ['paid'], { state: 'minting' });
      assert.equal(moved.outcome, 'moved');
      const paid = await store.purchases.update(
        made.purchaseId,
        ['awaiting_payment'],
        { state: 'paid', paidAt: 123, transactionId: 'tx-1' },
        {
          events: (next) => [event(next.purchaseId)],
          audit: {
            action: 'retry-mint',
            note: 'n',
            at: 1,
            previousState: 'awaiting_payment',
            state: 'paid',
            requestId: 'r',
          },
        },
      );
      assert.equal(paid.outcome, 'updated');
      assert.equal(paid.outcome === 'updated' && paid.purchase.revision, 2);
      assert.equal((await store.purchases.byId(made.purchaseId))?.state, 'paid');
      const events = await store.outbox.listEvents({ type: 'onramp.paid', limit: 200 });
      assert.ok(events.events.some((stored) => stored.payload.includes(made.purchaseId)));
      assert.deepEqual(await store.purchases.audit(made.purchaseId), [
        { action: 'retry-mint', note: 'n', at: 1, previousState: 'awaiting_payment', state: 'paid', requestId: 'r' },
      ]);
      const again = await store.purchases.update(made.purchaseId, ['awaiting_payment'], { state: 'paid' });
      assert.equal(again.outcome, 'moved', 'a second transition from the same state does nothing');
    });

    it('gives a mint transaction to one purchase only', async () => {
      const [first, second] = [purchase({ state: 'minting' }), purchase({ state: 'minting' })];
      await create(first);
      await create(second);
      const txHash = `0x${randomBytes(32).toString('hex')}`;
      assert.equal(
        (await store.purchases.update(first.purchaseId, ['minting'], { state: 'delivered', txHash })).outcome,
        'updated',
      );
      assert.equal(
        (await store.purchases.update(second.purchaseId, ['minting'], { state: 'delivered', txHash })).outcome,
        'tx-taken',
      );
      assert.equal((await store.purchases.byId(second.purchaseId))?.state, 'minting');
    });

    it('leases a purchase to one holder at a time, until the lease ends or is given up', async () => {
      const made = purchase();
      await create(made);
      const now = Date.now();
      assert.equal(await store.purchases.lease(made.purchaseId, 'a', now, 10_000), true);
      assert.equal(await store.purchases.lease(made.purchaseId, 'b', now, 10_000), false);
      assert.equal(await store.purchases.lease(made.purchaseId, 'a', now, 10_000), true, 'renewed by its holder');
      await store.purchases.unlease(made.purchaseId, 'b');
      assert.equal(
        await store.purchases.lease(made.purchaseId, 'b', now, 10_000),
        false,
        'only the holder gives it up',
      );
      await store.purchases.unlease(made.purchaseId, 'a');
      assert.equal(await store.purchases.lease(made.purchaseId, 'b', now, 50), true);
      await new Promise((resolve) => setTimeout(resolve, 80));
      assert.equal(await store.purchases.lease(made.purchaseId, 'c', Date.now(), 10_000), true, 'after it ends');
    });

    it('lists newest first by state and by wallet, in pages; the unsettled oldest first', async () => {
      const wallet = Wallet.createRandom().address;
      const base = Date.now() + 10 * DAY;
      const made = [0, 1, 2, 3, 4].map((i) =>
        purchase({ wallet, createdAt: base + i, state: i === 2 ? 'delivered' : 'awaiting_payment' }),
      );
      for (const item of made) await create(item);
      const first = await store.purchases.list({ wallet, limit: 2 });
      assert.deepEqual(
        first.purchases.map((p) => p.purchaseId),
        [made[4]!.purchaseId, made[3]!.purchaseId],
      );
      const second = await store.purchases.list({ wallet, limit: 10, cursor: first.nextCursor! });
      assert.deepEqual(
        second.purchases.map((p) => p.purchaseId),
        [made[2]!.purchaseId, made[1]!.purchaseId, made[0]!.purchaseId],
      );
      assert.equal(second.nextCursor, null);
      const delivered = await store.purchases.list({ wallet, state: 'delivered', limit: 10 });
      assert.deepEqual(
        delivered.purchases.map((p) => p.purchaseId),
        [made[2]!.purchaseId],
      );
      await assert.rejects(store.purchases.list({ limit: 5, cursor: 'bm9wZQ' }), InvalidPurchaseCursorError);
      const unsettled = (await store.purchases.unsettled(10_000)).filter((p) => p.wallet === wallet);
      assert.deepEqual(
        unsettled.map((p) => p.purchaseId),
        [made[0]!, made[1]!, made[3]!, made[4]!].map((p) => p.purchaseId),
      );
    });
  });
}

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { expiryRule } from '../../proxy/events/event-rules.ts';
import type { Payment, Store } from '../../proxy/state/store.ts';
import { STORE_BACKENDS, type OpenedStore } from '../support/store-backends.ts';
import { checkout, payment } from '../support/store-records.ts';

const STALE = 60_000;

/** One contract, every store: whatever the proxy relies on holds for SQLite, Redis and PostgreSQL alike. */
for (const backend of STORE_BACKENDS) {
  describe(`store contract: ${backend.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    before(async () => ({ store } = opened = await backend.open()));
    after(() => opened.close());

    /** Starts a payment the way the starter does: claim, then record. */
    const started = async (
      input: { checkoutId?: string | null; key?: string; status?: string; createdAt?: number } = {},
    ) => {
      const key = input.key ?? randomUUID();
      const claim = await store.beginAttempt({
        idempotencyKey: key,
        fingerprint: 'f',
        checkoutId: input.checkoutId ?? null,
        statusToken: `tok-${key}`,
        now: Date.now(),
        staleAfterMs: STALE,
      });
      assert.equal(claim.outcome, 'started');
      const made = payment({
        idempotencyKey: key,
        statusToken: `tok-${key}`,
        checkoutId: input.checkoutId ?? null,
        status: input.status ?? 'PENDING',
        createdAt: input.createdAt ?? Date.now(),
      });
      await store.recordPayment(made);
      return made;
    };

    it('keeps checkouts', async () => {
      const chk = checkout({ metadata: '{"a":1}' });
      await store.insertCheckout(chk);
      assert.deepEqual(await store.getCheckout(chk.checkoutId), chk);
      assert.equal(await store.getCheckout('chk_missing'), undefined);
      await assert.rejects(store.insertCheckout(chk), 'a checkout id is never reused');
    });

    it('claims a key once: the second claim is a replay of the first', async () => {
      const first = await started();
      const replay = await store.beginAttempt({
        idempotencyKey: first.idempotencyKey,
        fingerprint: 'f',
        checkoutId: null,
        statusToken: 'other',
        now: Date.now(),
        staleAfterMs: STALE,
      });
      assert.equal(replay.outcome, 'replay');
      assert.equal(replay.outcome === 'replay' && replay.attempt.transactionId, first.transactionId);
      assert.equal((await store.getAttempt(first.idempotencyKey))?.state, 'succeeded');
    });

    it('gives a checkout to one attempt at a time, even when 30 race for it', async () => {
      const chk = checkout();
      await store.insertCheckout(chk);
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store.beginAttempt({
            idempotencyKey: `race-${chk.checkoutId}-${i}`,
            fingerprint: 'f',
            checkoutId: chk.checkoutId,
            statusToken: `t-${chk.checkoutId}-${i}`,
            now: Date.now(),
            staleAfterMs: STALE,
          }),
        ),
      );
      assert.equal(claims.filter((claim) => claim.outcome === 'started').length, 1);
      assert.ok(claims.every((claim) => claim.outcome === 'started' || claim.outcome === 'checkout-taken'));
      assert.match((await store.getCheckout(chk.checkoutId))!.currentAttempt!, /^race-/);
    });

    it('frees a checkout after an abandoned or a stale attempt, and after a failed payment; not after a live or paid one', async () => {
      const chk = checkout();
      await store.insertCheckout(chk);
      const claim = (key: string, now = Date.now()) =>
        store.beginAttempt({
          idempotencyKey: key,
          fingerprint: 'f',
          checkoutId: chk.checkoutId,
          statusToken: `t-${key}`,
          now,
          staleAfterMs: STALE,
        });
      assert.equal((await claim(`a-${chk.checkoutId}`, Date.now() - 2 * STALE)).outcome, 'started');
      assert.equal((await claim(`b-${chk.checkoutId}`)).outcome, 'started', 'the stale pending attempt is discarded');
      assert.equal(await store.getAttempt(`a-${chk.checkoutId}`), undefined);
      assert.equal((await claim(`c-${chk.checkoutId}`)).outcome, 'checkout-taken');
      await store.abandonAttempt(`b-${chk.checkoutId}`);
      assert.equal((await store.getCheckout(chk.checkoutId))!.currentAttempt, null);
      const live = await started({ checkoutId: chk.checkoutId });
      assert.equal((await claim(`d-${chk.checkoutId}`)).outcome, 'checkout-taken', 'a live payment holds the checkout');
      await store.applyUpdate(
        live.transactionId,
        { ...live, status: 'FAILED', networkStatus: 'CANCELLED' },
        Date.now(),
      );
      const paid = await started({ checkoutId: chk.checkoutId });
      await store.applyUpdate(
        paid.transactionId,
        { ...paid, status: 'COMPLETED', completedAt: new Date().toISOString() },
        Date.now(),
      );
      assert.equal((await claim(`e-${chk.checkoutId}`)).outcome, 'checkout-paid');
    });

    it('finds payments by status token and id', async () => {
      const made = await started();
      assert.deepEqual(await store.paymentByToken(made.statusToken), made);
      assert.deepEqual(await store.paymentById(made.transactionId), made);
      assert.equal(await store.paymentByToken('nope'), undefined);
    });

    it('applies updates: visible changes only, and a final status never changes again', async () => {
      const made = await started();
      const quiet = await store.applyUpdate(made.transactionId, { ...made }, made.lastCheckedAt! + 1);
      assert.equal(quiet, undefined, 'nothing visible changed');
      assert.equal((await store.paymentById(made.transactionId))!.lastCheckedAt, made.lastCheckedAt! + 1);
      const authorised = await store.applyUpdate(
        made.transactionId,
        { ...made, networkStatus: 'AUTHORISED', providerId: 'bank_x' },
        Date.now(),
      );
      assert.equal(authorised?.networkStatus, 'AUTHORISED');
      // The end-to-end id and the return page stay as recorded when an update does not carry them.
      const { endToEndId: _, ...withoutEndToEnd } = made;
      const chosen = await store.applyUpdate(
        made.transactionId,
        { ...withoutEndToEnd, networkStatus: 'AUTHORISED', providerId: 'bank_y' },
        Date.now(),
      );
      assert.equal(chosen?.endToEndId, made.endToEndId);
      assert.equal((await store.paymentById(made.transactionId))!.returnUrl, made.returnUrl);
      assert.equal((await store.paymentById(made.transactionId))!.endToEndId, made.endToEndId);
      const done = await store.applyUpdate(
        made.transactionId,
        {
          ...made,
          status: 'COMPLETED',
          networkStatus: 'PAYMENT_EXECUTED_CREDITED',
          completedAt: new Date().toISOString(),
        },
        Date.now(),
      );
      assert.equal(done?.status, 'COMPLETED');
      assert.equal(
        await store.applyUpdate(
          made.transactionId,
          { ...made, status: 'FAILED', networkStatus: 'REJECTED' },
          Date.now(),
        ),
        undefined,
      );
      assert.equal((await store.paymentById(made.transactionId))!.status, 'COMPLETED');
      assert.equal(await store.applyUpdate('unknown', { ...made }, Date.now()), undefined);
    });

    it('lists newest first, by status, a page at a time; lists the pending oldest first', async () => {
      const base = Date.now() + 10_000_000;
      const made: Payment[] = [];
      for (let i = 0; i < 5; i++) made.push(await started({ createdAt: base + i }));
      await store.applyUpdate(made[2]!.transactionId, { ...made[2]!, status: 'FAILED' }, Date.now());
      const first = await store.listPayments({ limit: 2 });
      assert.deepEqual(
        first.payments.map((p) => p.transactionId),
        [made[4]!.transactionId, made[3]!.transactionId],
      );
      const second = await store.listPayments({ limit: 2, cursor: first.nextCursor! });
      assert.deepEqual(
        second.payments.map((p) => p.transactionId),
        [made[2]!.transactionId, made[1]!.transactionId],
      );
      const failed = await store.listPayments({ status: 'FAILED', limit: 50 });
      assert.ok(failed.payments.some((p) => p.transactionId === made[2]!.transactionId));
      assert.ok(failed.payments.every((p) => p.status === 'FAILED'));
      const pending = (await store.pendingPayments(1_000)).map((p) => p.transactionId);
      assert.ok(!pending.includes(made[2]!.transactionId));
      const ours = pending.filter((id) => made.some((p) => p.transactionId === id));
      assert.deepEqual(
        ours,
        [made[0]!, made[1]!, made[3]!, made[4]!].map((p) => p.transactionId),
        'oldest first',
      );
    });

    it('remembers webhook deliveries', async () => {
      const event = { dedupeKey: randomUUID(), transactionId: null, receivedAt: Date.now(), body: '{}' };
      assert.equal(await store.recordWebhook(event), true);
      assert.equal(await store.recordWebhook(event), false);
      await store.ping();
    });

    it('settles a checkout’s expiry once, when two sweeps (two instances) race for it', async () => {
      const now = Date.now();
      const expired = checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 });
      await store.insertCheckout(expired);
      const rule = expiryRule('sandbox');
      await Promise.all([1, 2, 3].map(() => store.outbox.expireCheckouts(Date.now(), 100, rule)));
      const { events } = await store.outbox.listEvents({ limit: 200 });
      assert.deepEqual(
        events.filter((event) => event.checkoutId === expired.checkoutId).map((event) => event.type),
        ['checkout.expired'],
      );
    });

    it('where events go: a run of 410s disables an endpoint once, a 2xx ends the run, an operator enables it', async () => {
      const { outbox } = store;
      const id = `ep_${randomUUID()}`;
      const fresh = { endpointId: id, goneInARow: 0, disabledAt: null, disabledReason: null };
      const rule = (at: number) => ({ after: 3, at, reason: 'answered 410 Gone 3 times in a row' });
      assert.deepEqual(await outbox.endpointState(id), fresh, 'never recorded: enabled');
      assert.equal((await outbox.countGone(id, rule(1))).goneInARow, 1);
      await outbox.clearGone(id);
      assert.deepEqual(await outbox.endpointState(id), fresh, 'a 2xx ended the run');
      // Ten attempts of a fleet answered at once: each counted, and the one that made the run 3 disabled it.
      const states = await Promise.all(Array.from({ length: 10 }, (_, i) => outbox.countGone(id, rule(100 + i))));
      assert.deepEqual(
        states.map((state) => state.goneInARow).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      );
      const third = states.findIndex((state) => state.goneInARow === 3);
      for (const state of states) assert.equal(state.disabledAt, state.goneInARow < 3 ? null : 100 + third);
      assert.deepEqual(await outbox.endpointState(id), {
        endpointId: id,
        goneInARow: 10,
        disabledAt: 100 + third,
        disabledReason: 'answered 410 Gone 3 times in a row',
      });
      await outbox.clearGone(id);
      assert.equal((await outbox.endpointState(id)).disabledAt, 100 + third, 'a late 2xx does not enable it');
      assert.deepEqual(await outbox.enableEndpoint(id), fresh);
      assert.deepEqual(await outbox.endpointState(id), fresh);
    });

    it('a queued re-read is settled only by a read that began after it was last queued', async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      const { reconciliation } = store;
      await reconciliation.queueReread(first, 1_000);
      await reconciliation.queueReread(second, 1_500);
      // Queued again during a read that began at 2_000: that read does not settle it.
      await reconciliation.queueReread(first, 2_500);
      await reconciliation.dequeueReread(first, 2_000);
      await reconciliation.dequeueReread(second, 2_000);
      assert.deepEqual(
        (await reconciliation.queuedRereads(100)).filter((id) => id === first || id === second),
        [first],
      );
      await reconciliation.dequeueReread(first, 3_000);
      await reconciliation.queueReread(second, 500);
      await reconciliation.dequeueReread(second);
      assert.deepEqual(
        (await reconciliation.queuedRereads(100)).filter((id) => id === first || id === second),
        [],
      );
    });
  });
}

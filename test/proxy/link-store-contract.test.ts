import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LinkRecord } from '../../proxy/state/links.ts';
import type { NewEvent } from '../../proxy/state/outbox.ts';
import type { Store } from '../../proxy/state/store.ts';
import { STORE_BACKENDS } from '../support/store-backends.ts';
import { link } from '../support/store-records.ts';

const newCheckoutId = () => `chk_${randomBytes(18).toString('base64url')}`;
const refNumbered = (n: number) => `LESSON-${n}`;

const event = (checkoutId: string): NewEvent => ({
  eventId: `evt_${randomBytes(12).toString('base64url')}`,
  type: 'checkout.paid', // any event: what counts is that it is written with the settle
  transactionId: 'tx-1',
  checkoutId,
  sequence: 1,
  createdAt: Date.now(),
  payload: JSON.stringify({ checkoutId }),
});

/** One contract, every store: links' counters hold whichever backend keeps them, however many customers race. */
for (const backend of STORE_BACKENDS) {
  describe(`link store contract: ${backend.name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await backend.open()));
    after(() => close());

    const made = async (overrides: Partial<LinkRecord> = {}) => {
      const record = link(overrides);
      await store.links.createLink(record);
      return record;
    };
    const reserve = (code: string, amount = '10.00', now = Date.now()) =>
      store.links.reserveUse(code, { checkoutId: newCheckoutId(), amount, reference: refNumbered }, now);
    const reservedUse = async (code: string, amount = '10.00', now = Date.now()) => {
      const outcome = await reserve(code, amount, now);
      assert.equal(outcome?.outcome, 'reserved');
      return outcome.use;
    };

    it('keeps links, lists them newest first in pages, and refuses a code twice', async () => {
      const first = await made({ createdAt: 1_000 });
      const second = await made({ createdAt: 2_000 });
      const third = await made({ createdAt: 3_000 });
      assert.deepEqual(await store.links.linkByCode(first.code), first);
      assert.equal(await store.links.linkByCode('nope'), undefined);
      await assert.rejects(store.links.createLink(first), 'a code is never given twice');
      const codes: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.links.listLinks({ limit: 1, cursor });
        codes.push(...page.links.map((each) => each.code));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const ours = codes.filter((code) => [first.code, second.code, third.code].includes(code));
      assert.deepEqual(ours, [third.code, second.code, first.code]);
    });

    it('lists the links of one kind (counter payments apart from links to share), newest first in pages', async () => {
      const shared = await made({ createdAt: 4_000 });
      const tills = [
        await made({ kind: 'counter', createdAt: 5_000 }),
        await made({ kind: 'counter', createdAt: 6_000 }),
      ];
      assert.equal((await store.links.linkByCode(tills[0]!.code))?.kind, 'counter');
      const listed = async (kind: 'link' | 'counter') => {
        const codes: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.links.listLinks({ limit: 1, cursor, kind });
          assert.ok(
            page.links.every((each) => each.kind === kind),
            `only ${kind}s`,
          );
          codes.push(...page.links.map((each) => each.code));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return codes;
      };
      const counters = await listed('counter');
      assert.deepEqual(
        counters.filter((code) => tills.some((till) => till.code === code)),
        [tills[1]!.code, tills[0]!.code],
      );
      assert.ok(!counters.includes(shared.code), 'a link to share is not a counter payment');
      const links = await listed('link');
      assert.ok(links.includes(shared.code));
      assert.ok(!tills.some((till) => links.includes(till.code)), 'counter payments are not links to share');
      const all = (await store.links.listLinks({ limit: 200 })).links.map((each) => each.code);
      assert.ok(
        [shared, ...tills].every((each) => all.includes(each.code)),
        'with no kind, every link',
      );
    });

    it('moves a link between states only from those allowed', async () => {
      const record = await made();
      const paused = await store.links.setLinkState(record.code, ['active'], 'paused', 5);
      assert.deepEqual(paused, { changed: true, link: { ...record, state: 'paused', updatedAt: 5 } });
      const again = await store.links.setLinkState(record.code, ['active'], 'paused', 6);
      assert.equal(again?.changed, false, 'pausing a paused link changes nothing');
      assert.equal(again?.link.updatedAt, 5);
      assert.equal(
        (await store.links.setLinkState(record.code, ['active', 'paused'], 'ended', 7))?.link.state,
        'ended',
      );
      assert.equal((await store.links.setLinkState(record.code, ['paused'], 'active', 8))?.changed, false);
      assert.equal(await store.links.setLinkState('nope', ['active'], 'paused', 9), undefined);
    });

    it('numbers each use, holds its amount, and refuses a paused, ended or expired link', async () => {
      const record = await made();
      const one = await reservedUse(record.code, '10.00');
      const two = await reservedUse(record.code, '2.5');
      assert.deepEqual([one.n, one.reference, two.n, two.reference], [1, 'LESSON-1', 2, 'LESSON-2']);
      assert.deepEqual(await store.links.useByCheckout(two.checkoutId), two);
      const now = await store.links.linkByCode(record.code);
      assert.deepEqual([now?.counter, now?.heldUses, now?.heldTotal, now?.paidUses], [2, 2, '12.5', 0]);

      await store.links.setLinkState(record.code, ['active'], 'paused', Date.now());
      assert.deepEqual(await reserve(record.code).then((r) => r?.outcome === 'refused' && r.reason), 'paused');
      await store.links.setLinkState(record.code, ['paused'], 'ended', Date.now());
      assert.deepEqual(await reserve(record.code).then((r) => r?.outcome === 'refused' && r.reason), 'ended');
      const expired = await made({ expiresAt: Date.now() - 1 });
      assert.deepEqual(await reserve(expired.code).then((r) => r?.outcome === 'refused' && r.reason), 'expired');
      assert.equal((await store.links.linkByCode(record.code))?.counter, 2, 'a refusal numbers nothing');
      assert.equal(await reserve('nope'), undefined);
    });

    it('gives the last use of a single-use link to one of 30 customers racing for it', async () => {
      const record = await made({ maxUses: 1 });
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => reserve(record.code)));
      const reservations = outcomes.filter((outcome) => outcome?.outcome === 'reserved');
      assert.equal(reservations.length, 1);
      assert.ok(outcomes.every((outcome) => outcome?.outcome === 'reserved' || outcome?.reason === 'used-up'));
      const now = await store.links.linkByCode(record.code);
      assert.deepEqual([now?.counter, now?.heldUses, now?.heldTotal], [1, 1, '10']);
    });

    it('takes no more than its total cap when 20 customers race for it, held uses counted', async () => {
      const record = await made({ amount: null, minAmount: '1', maxAmount: '50', maxTotal: '100' });
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => reserve(record.code, '30')));
      assert.equal(outcomes.filter((outcome) => outcome?.outcome === 'reserved').length, 3);
      assert.ok(outcomes.every((outcome) => outcome?.outcome === 'reserved' || outcome?.reason === 'total-reached'));
      assert.equal((await reserve(record.code, '10'))?.outcome, 'reserved', 'what is left under the cap is taken');
      assert.equal((await reserve(record.code, '0.01'))?.outcome, 'refused');
      assert.equal((await store.links.linkByCode(record.code))?.heldTotal, '100');
    });

    it('settles a use once: paid counts it and writes its events in the same step, whoever races', async () => {
      const record = await made({ maxUses: 1 });
      const use = await reservedUse(record.code, '10.00');
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.links.settleUse(use.checkoutId, 'paid', 42, {
            transactionId: 'tx-1',
            events: (_, settledUse) => [event(settledUse.checkoutId)],
          }),
        ),
      );
      const done = results.filter((result) => result !== undefined);
      assert.equal(done.length, 1, 'one settle of ten');
      assert.deepEqual(done[0]?.use, { ...use, state: 'paid', settledAt: 42, transactionId: 'tx-1' });
      const now = await store.links.linkByCode(record.code);
      assert.deepEqual(
        [now?.paidUses, now?.paidTotal, now?.heldUses, now?.heldTotal, now?.lastPaidAt],
        [1, '10', 0, '0', 42],
      );
      const events = (await store.outbox.listEvents({ type: 'checkout.paid', limit: 100 })).events.filter(
        (stored) => stored.checkoutId === use.checkoutId,
      );
      assert.equal(events.length, 1, 'one event, written with the one settle');
      assert.equal(await store.links.settleUse(use.checkoutId, 'released', 43), undefined, 'a paid use stays paid');
      assert.equal((await reserve(record.code))?.outcome, 'refused', 'the paid use is the link’s one use');
    });

    it('gives a released use back: the next customer may take it', async () => {
      const record = await made({ maxUses: 1, maxTotal: '10' });
      const use = await reservedUse(record.code);
      assert.equal((await reserve(record.code))?.outcome, 'refused');
      const released = await store.links.settleUse(use.checkoutId, 'released', 50);
      assert.deepEqual(
        [released?.use.state, released?.link.heldUses, released?.link.heldTotal, released?.link.paidUses],
        ['released', 0, '0', 0],
      );
      const next = await reservedUse(record.code);
      assert.equal(next.n, 2, 'the number is not given again');
    });

    it('lists the uses still held, oldest first, and a link’s uses newest first in pages', async () => {
      const record = await made();
      const uses = [];
      // A millisecond apart: uses of one millisecond are in no particular order.
      for (let i = 0; i < 3; i++) uses.push(await reservedUse(record.code, '10.00', Date.now() + i));
      await store.links.settleUse(uses[1]!.checkoutId, 'released', Date.now());
      const held = (await store.links.heldUses(1_000)).filter((use) => use.code === record.code);
      assert.deepEqual(
        held.map((use) => use.checkoutId),
        [uses[0]!.checkoutId, uses[2]!.checkoutId],
      );
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.links.usesOf(record.code, { limit: 2, cursor });
        listed.push(...page.uses.map((use) => use.n.toString()));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.deepEqual(listed, ['3', '2', '1']);
      assert.deepEqual((await store.links.usesOf('nope', { limit: 5 })).uses, []);
    });
  });
}

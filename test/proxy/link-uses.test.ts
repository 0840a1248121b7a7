import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newLinkSchema } from '../../schemas/links.ts';
import {
  LinkEndedError,
  LinkPausedError,
  LinkTotalReachedError,
  LinkUsedUpError,
} from '../../proxy/links/link-errors.ts';
import { Links } from '../../proxy/links/links.ts';
import { Checkouts } from '../../proxy/payments/checkouts.ts';
import type { Store } from '../../proxy/state/store.ts';
import { storeUnderTest } from '../support/store-backends.ts';
import { payment } from '../support/store-records.ts';

const SHOP = { openAmount: { min: '1', max: '500', currencyCode: 'EUR' }, returnUrls: ['https://shop.example/thanks'] };
const BY = { kind: 'merchant-key', id: 'environment' } as const;

/** The links' domain on the store KASSA_TEST_STORE names: customers start paying, payments end, uses settle. */
describe('link uses', () => {
  let store: Store;
  let close: () => Promise<void>;
  let links: Links;
  before(async () => {
    ({ store, close } = await storeUnderTest());
    links = new Links({ links: store.links, checkouts: new Checkouts(store, 3600), shop: SHOP });
  });
  after(() => close());

  const create = (fields: Record<string, unknown>) =>
    links.create(newLinkSchema.parse({ title: 'Lesson', currencyCode: 'EUR', reference: 'INV-{n}', ...fields }), BY);

  /** The customer's payment of a checkout, as the starter records it, then turned `status` by a verified read. */
  const pay = async (checkoutId: string, status: 'COMPLETED' | 'FAILED' | 'PENDING') => {
    const made = payment({ checkoutId, idempotencyKey: `key-${checkoutId}`, statusToken: `tok-${checkoutId}` });
    const claim = await store.beginAttempt({
      idempotencyKey: made.idempotencyKey,
      fingerprint: 'f',
      checkoutId,
      statusToken: made.statusToken,
      now: Date.now(),
      staleAfterMs: 60_000,
    });
    assert.equal(claim.outcome, 'started');
    await store.recordPayment(made);
    if (status !== 'PENDING')
      await store.applyUpdate(
        made.transactionId,
        { ...made, status, completedAt: status === 'COMPLETED' ? new Date().toISOString() : null },
        Date.now(),
      );
    return made;
  };

  it('makes an ordinary checkout for each customer, numbered by the link’s counter', async () => {
    const link = await create({ amount: '12.50' });
    const first = await links.startPaying(link.code, undefined);
    const second = await links.startPaying(link.code, '12.5');
    assert.deepEqual(
      [first.checkout.reference, second.checkout.reference, first.checkout.amount, first.checkout.currencyCode],
      ['INV-1', 'INV-2', '12.50', 'EUR'],
    );
    assert.deepEqual(await store.getCheckout(first.checkout.checkoutId), first.checkout);
    assert.deepEqual(JSON.parse(first.checkout.metadata!), { link: link.code });
    assert.equal((await links.useOf(second.checkout.checkoutId))?.n, 2);
  });

  it('gives a single-use link to one of two customers racing for it; the other is told it is used up', async () => {
    const link = await create({ amount: '5', maxUses: 1 });
    const results = await Promise.allSettled([
      links.startPaying(link.code, undefined),
      links.startPaying(link.code, undefined),
    ]);
    const started = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    assert.equal(started.length, 1);
    assert.ok(refused[0]!.reason instanceof LinkUsedUpError, String(refused[0]?.reason));
    assert.equal((await links.get(link.code)).counter, 1, 'the refused customer took no number');
  });

  it('counts a paid use once, with the payment that paid it, however often it is settled', async () => {
    const link = await create({ openAmount: {}, maxTotal: '100' });
    const { checkout, use } = await links.startPaying(link.code, '60');
    // 40 left: more is out of the bounds as they are now (the link is not complete while 40 fits).
    const outOfWhatIsLeft = {
      name: 'InvalidInputError',
      details: { reason: 'amount-out-of-bounds', min: '1', max: '40', currencyCode: 'EUR' },
    };
    await assert.rejects(links.startPaying(link.code, '41'), outOfWhatIsLeft);
    const paid = await pay(checkout.checkoutId, 'COMPLETED');
    const settled = await Promise.all([links.settle(use), links.settle(use), links.settle(use)]);
    assert.ok(settled.some((each) => each?.state === 'paid'));
    const now = await links.get(link.code);
    assert.deepEqual([now.paidUses, now.paidTotal, now.heldUses], [1, '60', 0]);
    assert.equal((await links.useOf(checkout.checkoutId))?.transactionId, paid.transactionId);
    await assert.rejects(links.startPaying(link.code, '40.01'), outOfWhatIsLeft);
    await links.startPaying(link.code, '40');
    await assert.rejects(links.startPaying(link.code, '1'), LinkTotalReachedError);
  });

  it('keeps a use while its checkout may still be paid, and gives it back once it cannot', async () => {
    const link = await create({ amount: '5', maxUses: 1 });
    const { checkout, use } = await links.startPaying(link.code, undefined);
    await pay(checkout.checkoutId, 'FAILED');
    assert.equal((await links.settle(use))?.state, 'held', 'the customer may try again on the same checkout');
    await assert.rejects(links.startPaying(link.code, undefined), LinkUsedUpError);
    assert.equal((await links.settle(use, checkout.expiresAt + 1))?.state, 'released');
    const next = await links.startPaying(link.code, undefined);
    assert.equal(next.checkout.reference, 'INV-2');
  });

  it('keeps a use whose payment is still under way past its checkout’s expiry', async () => {
    const link = await create({ amount: '5', maxUses: 1 });
    const { checkout, use } = await links.startPaying(link.code, undefined);
    await pay(checkout.checkoutId, 'PENDING');
    assert.equal((await links.settle(use, checkout.expiresAt + 1))?.state, 'held');
  });

  it('takes nothing while paused or once ended, and moves only as its state allows', async () => {
    const link = await create({ amount: '5' });
    await links.move(link.code, 'pause');
    await assert.rejects(links.startPaying(link.code, undefined), LinkPausedError);
    await assert.rejects(links.move(link.code, 'pause'), /is paused: it cannot be paused/);
    await links.move(link.code, 'resume');
    await links.startPaying(link.code, undefined);
    await links.move(link.code, 'end');
    await assert.rejects(links.startPaying(link.code, undefined), LinkEndedError);
    await assert.rejects(links.move(link.code, 'resume'), /is ended/);
    await assert.rejects(links.move('A'.repeat(24), 'end'), /Unknown link/);
    await assert.rejects(links.get('not a code'), /Unknown link/);
  });
});

/**
 * The demo shop's event endpoint (demo/shop-events.ts), as the proxy reaches it: an order is
 * confirmed only by a correctly signed `checkout.paid`; a forged, stale or malformed delivery is
 * refused with a 4xx and changes nothing, and no input makes it answer a 5xx.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { eventsSecret } from '../../demo/demo.ts';
import { startShop } from '../../demo/shop-server.ts';
import type { Listening } from '../../server-kit/listen.ts';
import { anyValue, FUZZ_RUNS } from '../support/arbitraries.ts';
import { http } from '../support/http.ts';

const checkout = (checkoutId: string, state: 'paid' | 'expired') => ({
  checkoutId,
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1',
  expiresAt: new Date(Date.now() + 3600_000).toISOString(),
  state,
  environment: 'sandbox',
  metadata: null,
  createdAt: new Date().toISOString(),
  transactionId: state === 'paid' ? 'tx_1' : null,
  paidAt: state === 'paid' ? new Date().toISOString() : null,
});

describe('e2e: the demo shop receives the proxy’s events', () => {
  const secret = eventsSecret();
  let shop: Listening;
  before(async () => {
    // No proxy is needed for the event endpoint: it never calls out.
    shop = await startShop({
      port: 0,
      proxy: () => ({ origin: 'http://127.0.0.1:9', merchantKey: 'mk_unused' }),
      eventsSecret: secret,
    });
  });
  after(() => shop.close());

  const deliver = (body: string, key = secret, id = `evt_${randomBytes(8).toString('hex')}`) => {
    const at = new Date();
    return http(`${shop.origin}/kassa/events`, {
      raw: body,
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(key).sign(id, at, body),
      },
    });
  };
  const confirmed = async (checkoutId: string) =>
    (await http(`${shop.origin}/order/confirmation`, { headers: { Cookie: `kassa_demo_checkout=${checkoutId}` } }))
      .body as { confirmed: boolean; message: string | null };

  it('confirms an order on a verified checkout.paid, and only then', async () => {
    const id = `chk_${randomBytes(6).toString('hex')}`;
    const paid = JSON.stringify({
      type: 'checkout.paid',
      timestamp: new Date().toISOString(),
      sequence: 2,
      data: checkout(id, 'paid'),
    });
    const expired = JSON.stringify({
      type: 'checkout.expired',
      timestamp: new Date().toISOString(),
      sequence: 1,
      data: checkout(id, 'expired'),
    });

    assert.equal((await deliver(expired)).status, 204);
    assert.equal((await confirmed(id)).confirmed, false);
    // Forged: signed with another secret.
    const forged = await deliver(paid, eventsSecret());
    assert.equal(forged.status, 400);
    assert.match(forged.body.error, /signature/);
    assert.equal((await confirmed(id)).confirmed, false);

    assert.equal((await deliver(paid)).status, 204);
    assert.deepEqual(await confirmed(id), { confirmed: true, message: "Paid, confirmed by the shop's server" });
    // A stale expiry arriving late changes nothing; a repeat of the same id is acknowledged.
    assert.equal((await deliver(expired)).status, 204);
    assert.equal((await confirmed(id)).confirmed, true);
  });

  it('a checkout.paid with a lower sequence than one handled is dropped', async () => {
    const id = `chk_${randomBytes(6).toString('hex')}`;
    const event = (type: string, sequence: number) =>
      JSON.stringify({
        type,
        timestamp: new Date().toISOString(),
        sequence,
        data: checkout(id, type === 'checkout.paid' ? 'paid' : 'expired'),
      });
    assert.equal((await deliver(event('checkout.expired', 5))).status, 204);
    assert.equal((await deliver(event('checkout.paid', 2))).status, 204);
    assert.equal((await confirmed(id)).confirmed, false);
  });

  it('property: any delivery that is not genuine gets a 4xx and confirms nothing', async () => {
    const id = `chk_${randomBytes(6).toString('hex')}`;
    const genuine = JSON.stringify({
      type: 'checkout.paid',
      timestamp: new Date().toISOString(),
      sequence: 2,
      data: checkout(id, 'paid'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constant(genuine),
          fc.string(),
          anyValue.map((value) => JSON.stringify(value) ?? ''),
        ),
        fc.dictionary(
          fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature'),
          fc.oneof(
            fc.string({ unit: 'grapheme-ascii' }),
            fc.base64String().map((value) => `v1,${value}`),
          ),
        ),
        async (body, headers) => {
          const answer = await http(`${shop.origin}/kassa/events`, {
            raw: body,
            headers: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [name, value.replace(/[\r\n]/g, '')]),
            ),
          });
          assert.ok(answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.text}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal((await confirmed(id)).confirmed, false);
  });
});

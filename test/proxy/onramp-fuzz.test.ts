import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { checkedSender, FUZZ_RUNS, rawBody, segment } from '../support/arbitraries.ts';
import { ONRAMP_ENV, onrampCustomer } from '../support/onramp.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

/** Property: whatever a page or an operator sends to the on-ramp's routes, no 5xx, every error `{error}`. */
describe('proxy: fast-check on the on-ramp routes', () => {
  let stack: Stack;
  const wallet = Wallet.createRandom();

  const send = checkedSender(() => stack.proxy.origin);
  const headerText = fc.string({ maxLength: 300 }).map((value) => value.replace(/[^\t\x20-\x7e]/g, ''));

  before(async () => {
    stack = await startStack({ env: ONRAMP_ENV, sandbox: { mintDelayMs: 0 } });
  });
  after(async () => {
    try {
      assert.equal((await onrampCustomer(stack, wallet).quote()).status, 201, 'still serving');
    } finally {
      await stack.stop();
    }
  });

  it('POST /api/onramp/quotes: any body', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBody({ wallet: wallet.address, chainId: 31338, symbol: 'eEUR', amount: '25' }),
        async (raw) => {
          await send('/api/onramp/quotes', { raw, headers: { Origin: SHOP_ORIGIN } });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('POST /api/onramp/quotes: chainId is a JSON integer, and nothing is coerced into one', async () => {
    const quote = (chainId: unknown) =>
      send('/api/onramp/quotes', {
        raw: JSON.stringify({ wallet: wallet.address, chainId, symbol: 'eEUR', amount: '25' }),
        headers: { Origin: SHOP_ORIGIN },
      });
    const notAnInteger = fc.oneof(
      fc.constantFrom(
        '0x7a6a',
        ' 31338 ',
        '31338',
        '31338.0',
        [31338],
        true,
        false,
        null,
        {},
        31338.5,
        Number.MAX_SAFE_INTEGER + 2,
      ),
      fc.jsonValue().filter((value) => !Number.isInteger(value)),
      fc.integer().map(String),
      fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 2 }),
      fc.double().filter((value) => !Number.isInteger(value)),
    );
    await fc.assert(
      fc.asyncProperty(notAnInteger, async (chainId) => {
        const refused = await quote(chainId);
        assert.equal(refused.status, 400, `${JSON.stringify(chainId)}: ${refused.text}`);
        assert.match(refused.body.error as string, /chainId must be a chain id: a positive JSON integer/);
      }),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal((await quote(31338)).status, 201, 'the documented form');
    const written = await send('/api/onramp/quotes', {
      raw: `{"wallet":"${wallet.address}","chainId":31338.0,"symbol":"eEUR","amount":"25"}`,
      headers: { Origin: SHOP_ORIGIN },
    });
    assert.equal(written.status, 201, 'an integer written with a zero fraction is the same JSON integer');
  });

  it('POST /api/onramp/purchases: any body and Idempotency-Key, around a real quote and signature', async () => {
    const quote = await onrampCustomer(stack, wallet).quote();
    const signature = await wallet.signMessage(quote.body.message as string);
    await fc.assert(
      fc.asyncProperty(rawBody({ quoteId: quote.body.quoteId, signature }), headerText, async (raw, key) => {
        await send('/api/onramp/purchases', { raw, headers: { Origin: SHOP_ORIGIN, 'Idempotency-Key': key } });
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('GET the status and its stream with any token; the operator routes with any id, query and body', async () => {
    const auth = { Authorization: `Bearer ${stack.admin.token}` };
    await fc.assert(
      fc.asyncProperty(segment, segment, rawBody({ note: 'Returned by SEPA' }), async (id, query, body) => {
        await send(`/api/onramp/status/${id}`, { method: 'GET', headers: { Origin: SHOP_ORIGIN } });
        await send(`/api/onramp/status/${id}/events`, { method: 'GET', headers: { Origin: SHOP_ORIGIN } });
        await send(`/api/onramp/purchases?limit=${query}&state=${query}&wallet=${id}&cursor=${id}`, {
          method: 'GET',
          headers: auth,
        });
        await send(`/api/onramp/purchases/${id}`, { method: 'GET', headers: auth });
        await send(`/api/onramp/purchases/${id}/retry-mint`, { raw: body, headers: auth });
        await send(`/api/onramp/purchases/${id}/refund`, { raw: body, headers: auth });
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

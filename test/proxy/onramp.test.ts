import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { parseSiweMessage } from '../../lib/siwe.ts';
import { anvilAccount } from '../support/chains.ts';
import { balanceOf, ONRAMP_ENV, onrampCustomer, units } from '../support/onramp.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

describe('proxy: the on-ramp, from quote to tokens on the chain', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ env: ONRAMP_ENV, sandbox: { mintDelayMs: 0 } });
  });
  after(() => stack.stop());

  it('offers the configured coins on the chains the issuer mints on', async () => {
    const response = await stack.browser('/api/onramp/config');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.coins, [
      { currencyCode: 'EUR', symbol: 'eEUR' },
      { currencyCode: 'GBP', symbol: 'eGBR' },
    ]);
    assert.equal(response.body.min, '1');
    assert.equal(response.body.max, '500');
    assert.equal(response.body.walletLimit, '1000');
    const chains = response.body.chains as Array<{ chainId: number; tokens: Record<string, unknown> }>;
    assert.deepEqual(
      chains.map((chain) => chain.chainId),
      [31337, 31338],
    );
    for (const chain of chains) assert.deepEqual(Object.keys(chain.tokens).sort(), ['eEUR', 'eGBR']);
  });

  it('quotes the price and issues an EIP-4361 message for the page, the wallet and the purchase', async () => {
    const wallet = Wallet.createRandom();
    const response = await onrampCustomer(stack, wallet).quote({ amount: '25' });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(response.body.payment, { amount: '25.00', currencyCode: 'EUR', fee: '0.00' });
    const message = parseSiweMessage(response.body.message as string);
    assert.ok(message, response.body.message as string);
    assert.equal(message.domain, new URL(SHOP_ORIGIN).host);
    assert.equal(message.uri, SHOP_ORIGIN);
    assert.equal(message.address, wallet.address);
    assert.equal(message.chainId, 31338);
    assert.equal(message.requestId, response.body.quoteId);
    assert.equal(message.statement, 'Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to this address.');
  });

  it('delivers a paid purchase on the chain exactly once, with its transaction', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseToken } = await customer.buyAndPay({ amount: '25' });
    const delivered = await customer.until(purchaseToken, 'delivered');
    assert.match(delivered.txHash!, /^0x[0-9a-f]{64}$/);
    assert.equal(delivered.amount, '25');
    assert.equal(delivered.wallet, wallet.address);
    assert.equal(delivered.payment.status, 'COMPLETED');
    assert.match(delivered.explorerUrl!, /\/explorer\/31338\/tx\/0x/);
    assert.equal(await balanceOf(stack, 31338, 'eEUR', wallet.address), units('25'));
    assert.equal(await balanceOf(stack, 31337, 'eEUR', wallet.address), 0n, 'on the chosen chain only');
  });

  it('counts deliveries and open purchases in /metrics', async () => {
    const text = (await stack.operator('/metrics')).text;
    const count = /^kassa_onramp_delivery_seconds_count (\d+)$/m.exec(text);
    assert.ok(count && Number(count[1]) >= 1, 'a delivery was timed');
    assert.match(text, /^kassa_onramp_purchases_open\{state="delayed"\} \d+$/m);
  });

  it('creates no purchase and no checkout for a signature from another key', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const response = await customer.purchase({}, anvilAccount(7));
    assert.equal(response.status, 400);
    assert.match(response.body.error as string, /does not prove that 0x[0-9a-fA-F]{40} signed this purchase/);
    const listed = await stack.operator(`/api/onramp/purchases?wallet=${wallet.address}`);
    assert.deepEqual(listed.body.purchases, []);
  });

  it('refuses a quote used twice, and amounts outside the bounds, with their reason', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const quote = await customer.quote();
    const signature = await wallet.signMessage(quote.body.message as string);
    const first = await stack.browser('/api/onramp/purchases', { body: { quoteId: quote.body.quoteId, signature } });
    assert.equal(first.status, 201);
    const again = await stack.browser('/api/onramp/purchases', { body: { quoteId: quote.body.quoteId, signature } });
    assert.equal(again.status, 409);
    assert.match(again.body.error as string, /already used/);
    for (const [amount, reason] of [
      ['0.99', 'below-minimum'],
      ['500.01', 'above-maximum'],
    ]) {
      const refused = await customer.quote({ amount });
      assert.equal(refused.status, 422, amount);
      assert.equal(refused.body.error, 'amount must be from 1 to 500 eEUR');
      assert.deepEqual(refused.body.details, { reason, min: '1', max: '500', symbol: 'eEUR' });
    }
  });

  it("refuses a purchase past the wallet's limit for the day, saying how much is left", async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    for (const amount of ['500', '400']) assert.equal((await customer.purchase({ amount })).status, 201);
    const refused = await customer.quote({ amount: '150' });
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.error,
      'This wallet can buy at most 100 eEUR more in the next 24 hours (the limit is 1000 eEUR a day)',
    );
    assert.equal((await customer.quote({ amount: '100' })).status, 201);
    assert.equal((await customer.quote({ amount: '100', symbol: 'eGBR' })).status, 201, 'another coin, its own limit');
  });
});

describe('proxy: the on-ramp turned off', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it("answers its routes 404 saying so, readable by the shop's pages (CORS)", async () => {
    for (const [path, body] of [
      ['/api/onramp/config', undefined],
      ['/api/onramp/quotes', { amount: '25' }],
    ] as const) {
      const response = await stack.browser(path, body ? { body } : {});
      assert.equal(response.status, 404, path);
      assert.equal(response.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
      assert.match(response.body.error as string, /not enabled/);
    }
  });
});

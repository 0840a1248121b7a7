import { expect } from 'chai';
import type { OnrampDeliveredDetail, OnrampErrorDetail, PurchaseView } from '../../widget/kassa-onramp.ts';
import { bank, control, record, stayOnPage } from './support.ts';
import {
  balanceOf,
  bought,
  button,
  choose,
  connected,
  embeddedCheckout,
  inside,
  mountOnramp,
  ONRAMP_STACK,
  onrampStack,
  SHORT_WINDOW_STACK,
  onrampWallets,
  payAtBank,
  phase,
  purchaseElsewhere,
  purchasesOf,
  status,
  tamperedProxy,
  text,
  TWO,
  typeAmount,
  until,
  walletRecord,
  customerInWallet,
} from './onramp-element.ts';

/** Each test's wallet is an anvil account of its own: the proxy counts every wallet's purchases for a day. */
let accounts = 20;
const fresh = (options: Record<string, unknown> = {}) =>
  onrampWallets([{ id: `states-${accounts}`, account: accounts++, ...options }]).then(([wallet]) => wallet!);

const errors = (element: HTMLElement) => record(element, 'kassa-error');
const detailOf = (seen: ReturnType<typeof errors>) => seen.map(({ event }) => event.detail as OnrampErrorDetail);

describe('<kassa-onramp>: states', () => {
  it('buys 25 eEUR on Kassa Local Two: signed, paid at the bank, minted, delivered with its hash and the new balance', async () => {
    const { config } = await onrampStack();
    const token = config.chains.find((chain) => chain.chainId === TWO)!.tokens.eEUR!;
    const wallet = await fresh();
    const before = await balanceOf(TWO, token.address, wallet.address);
    const element = await connected(await mountOnramp(), wallet);
    const seen = record(element, 'kassa-onramp-status', 'kassa-onramp-delivered');
    await bought(element, '25');
    const [message] = await walletRecord<string[]>(wallet.id, 'signed');
    expect(message).to.contain(`${location.host} wants you to sign in with your Ethereum account:\n${wallet.address}`);
    expect(message).to.contain('Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to this address.');
    expect(text(element, 'purchase')).to.contain('25 eEUR on Kassa Local Two');
    const checkout = await embeddedCheckout(element);
    await until(() => checkout.phase === 'ready', 'the checkout');
    expect(checkout.shadowRoot!.querySelector('[part="amount"]')!.textContent).to.equal('€25.00');

    await payAtBank(element);
    await phase(element, 'delivered');
    expect(text(element, 'status')).to.equal('25 eEUR arrived in your wallet on Kassa Local Two.');
    const after = await balanceOf(TWO, token.address, wallet.address);
    expect(after - before).to.equal(25n * 10n ** 18n, 'minted once, to the wallet');
    const delivered = seen.filter(({ event }) => event.type === 'kassa-onramp-delivered');
    expect(delivered).to.have.length(1);
    const detail = delivered[0]!.event.detail as OnrampDeliveredDetail;
    expect(detail).to.deep.include({ amount: '25', symbol: 'eEUR', chainId: TWO });
    expect(detail.wallet.toLowerCase()).to.equal(wallet.address.toLowerCase());
    expect(detail.txHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(text(element, 'hash')).to.equal(detail.txHash);
    expect([...element.shadowRoot!.querySelectorAll('[part="steps"] li')].map((step) => step.className)).to.deep.equal([
      'done',
      'done',
      'done',
    ]);
    await until(() => inside(element, '[data-field="new-balance"]'), 'the new balance');
    const states = seen
      .filter(({ event }) => event.type === 'kassa-onramp-status')
      .map(({ event }) => (event.detail as PurchaseView).state);
    expect(states[0]).to.equal('awaiting_payment');
    expect(states.at(-1)).to.equal('delivered');
    expect(new Set(states).size, 'each state once').to.equal(states.length);
    expect(new URL(location.href).searchParams.get('kassa_purchase')).to.match(/^[\w-]{43}$/);
    button(element, 'Buy more').click();
    await phase(element, 'ready');
    expect(new URL(location.href).searchParams.has('kassa_purchase')).to.equal(false);
  });

  it('the offer: the coins and networks the proxy mints, the bounds, and what the customer pays', async () => {
    const element = await connected(await mountOnramp(), await fresh());
    const options = (id: string) =>
      [...inside<HTMLSelectElement>(element, `#${id}`)!.options].map((option) => option.textContent.trim());
    expect(options('coin')).to.deep.equal(['eEUR, paid in EUR', 'eGBR, paid in GBP']);
    expect(options('chain')).to.deep.equal(['Kassa Local One', 'Kassa Local Two']);
    expect(text(element, 'amount-hint')).to.equal('From 1 eEUR to 500 eEUR per purchase.');
    expect(text(element, 'cost')).to.equal('You pay — Sandbox');
    expect(text(element, 'balance')).to.match(/^Your balance on Kassa Local One: [\d,.]+ eEUR$/);
    await typeAmount(element, '12.5');
    expect(text(element, 'cost')).to.equal('You pay €12.50 Sandbox');
    expect(part(element, 'button')).to.equal(button(element, 'Buy 12.5 eEUR'));
    await choose(element, 'coin', 'eGBR');
    expect(text(element, 'cost')).to.equal('You pay £12.50 Sandbox');
    expect(text(element, 'amount-hint')).to.equal('From 1 eGBR to 500 eGBR per purchase.');
    await until(() => /eGBR$/.test(text(element, 'balance')), 'the eGBR balance');
  });

  it('the bounds: below 1 or above 500, or a third decimal, is said with its reason and nothing is asked of the wallet', async () => {
    const wallet = await fresh();
    const element = await connected(await mountOnramp(), wallet);
    const input = inside<HTMLInputElement>(element, '#amount')!;
    for (const [typed, said] of [
      ['0.5', 'The smallest purchase is 1 eEUR.'],
      ['501', 'The largest purchase is 500 eEUR.'],
      ['12.345', 'Use at most two decimal places.'],
      ['twelve', 'Enter an amount such as 12.5.'],
    ]) {
      await typeAmount(element, typed!);
      expect(text(element, 'amount-hint'), typed).to.equal(said);
      expect(input.getAttribute('aria-invalid')).to.equal('true');
      button(element, 'Buy').click();
      await element.updateComplete;
      expect(element.phase).to.equal('ready');
    }
    expect(await walletRecord<Array<{ method: string }>>(wallet.id, 'calls')).to.not.deep.include({
      method: 'personal_sign',
    });
    expect(await purchasesOf(wallet.address)).to.deep.equal([]);
  });

  it('a wallet whose signature comes from another key is refused with the reason, and no purchase, checkout or payment is made', async () => {
    const wallet = await fresh({ signsWith: 3 });
    const element = await connected(await mountOnramp(), wallet);
    const seen = errors(element);
    await choose(element, 'chain', TWO);
    await typeAmount(element, '25');
    button(element, 'Buy 25 eEUR').click();
    await status(element, 'The signature does not prove that this wallet is yours, so no payment was started.');
    expect(element.phase).to.equal('ready');
    expect(inside(element, 'kassa-checkout')).to.equal(null);
    expect(detailOf(seen)).to.deep.equal([
      {
        kind: 'rejected',
        stage: 'purchase',
        status: 400,
        message: detailOf(seen)[0]!.message,
      },
    ]);
    expect(await walletRecord<string[]>(wallet.id, 'signed')).to.have.length(1);
    expect(await purchasesOf(wallet.address)).to.deep.equal([]);
    expect(new URL(location.href).searchParams.has('kassa_purchase')).to.equal(false);
  });

  it('the wallet’s limit for the day: refused with how much it may still buy, and that much goes through', async () => {
    const wallet = await fresh();
    const index = accounts - 1;
    for (const amount of ['500', '490'])
      expect((await purchaseElsewhere(index, { amount })).status, amount).to.equal(201);
    const element = await connected(await mountOnramp(), wallet);
    const seen = errors(element);
    await choose(element, 'chain', TWO);
    await typeAmount(element, '25');
    button(element, 'Buy 25 eEUR').click();
    await status(element, 'This wallet can buy at most 10 eEUR more in the next 24 hours.');
    expect(element.phase).to.equal('ready');
    expect(detailOf(seen).map(({ kind, stage, status }) => ({ kind, stage, status }))).to.deep.equal([
      { kind: 'rejected', stage: 'quote', status: 422 },
    ]);
    expect(await walletRecord<string[]>(wallet.id, 'signed'), 'nothing to sign').to.deep.equal([]);
    await typeAmount(element, '10');
    expect(text(element, 'status'), 'the next amount clears it').to.equal('');
    button(element, 'Buy 10 eEUR').click();
    await phase(element, 'paying');
    expect(await purchasesOf(wallet.address)).to.have.length(3);
    button(element, 'Start over').click();
    await phase(element, 'ready');
    await typeAmount(element, '1');
    button(element, 'Buy 1 eEUR').click();
    await status(element, 'This wallet has reached its limit of 1,000 eEUR per 24 hours.');
  });

  it('declining to sign in the wallet: said, and nothing is bought', async () => {
    const wallet = await fresh({ rejectSign: true });
    const element = await connected(await mountOnramp(), wallet);
    const seen = errors(element);
    await typeAmount(element, '5');
    button(element, 'Buy 5 eEUR').click();
    await status(element, 'You declined to sign in your wallet. Nothing was bought.');
    expect(element.phase).to.equal('ready');
    expect(detailOf(seen)).to.deep.equal([
      { kind: 'wallet-rejected', stage: 'sign', status: 0, message: 'User denied message signature.', code: 4001 },
    ]);
    expect(await purchasesOf(wallet.address)).to.deep.equal([]);
  });

  it('a wallet whose chains go down (disconnect 4900) stays connected: said, nothing bought meanwhile, and it buys once they are back (connect)', async () => {
    const wallet = await fresh();
    const element = await connected(await mountOnramp(), wallet);
    const seen = errors(element);
    const unreachable = 'Your wallet cannot reach its network. Try again once it is back.';
    await customerInWallet(wallet.id, 'offline');
    await element.updateComplete;
    expect(element.phase, 'the session stays').to.equal('ready');
    expect(text(element, 'account')).to.contain(wallet.address.slice(0, 6));
    expect(text(element, 'status')).to.equal(unreachable);
    // Buying meanwhile: the wallet answers 4900, said the same way; still connected, nothing bought.
    await typeAmount(element, '2');
    button(element, 'Buy 2 eEUR').click();
    await until(() => seen.length, 'the error event');
    expect(element.phase).to.equal('ready');
    expect(text(element, 'status')).to.equal(unreachable);
    expect(detailOf(seen)).to.deep.equal([
      {
        kind: 'wallet-disconnected',
        stage: 'sign',
        status: 0,
        message: 'The wallet reaches none of its chains',
        code: 4900,
      },
    ]);
    expect(await purchasesOf(wallet.address)).to.deep.equal([]);
    // Back: the session goes on, and the same account buys.
    await customerInWallet(wallet.id, 'online');
    await element.updateComplete;
    expect(text(element, 'status')).to.equal('');
    button(element, 'Buy 2 eEUR').click();
    await phase(element, 'paying');
    expect((await purchasesOf(wallet.address)).length).to.equal(1);
  });

  it('a message that is not the purchase asked for is never handed to the wallet', async () => {
    const wallet = await fresh();
    const element = await connected(await mountOnramp({ proxy: await tamperedProxy() }), wallet);
    const seen = errors(element);
    await typeAmount(element, '25');
    button(element, 'Buy 25 eEUR').click();
    await status(
      element,
      'Kassa stopped: the message to sign is not the purchase you asked for, so your wallet was not asked to sign it.',
    );
    expect(detailOf(seen)[0]).to.deep.include({ kind: 'message-refused', stage: 'sign' });
    expect(detailOf(seen)[0]!.message).to.contain('Buy 250 eEUR');
    const calls = await walletRecord<Array<{ method: string }>>(wallet.id, 'calls');
    expect(calls.map((call) => call.method)).to.not.include('personal_sign');
  });

  it('a purchase whose answer was lost is tried again with the same key: the same purchase, never two', async () => {
    const wallet = await fresh();
    const element = await connected(await mountOnramp({ proxy: await tamperedProxy('lose-purchase-answer') }), wallet);
    await typeAmount(element, '8');
    button(element, 'Buy 8 eEUR').click();
    await status(element, 'The payment service is unavailable. Please try again shortly.');
    expect(element.phase).to.equal('ready');
    expect(await purchasesOf(wallet.address), 'made, though the answer was lost').to.have.length(1);
    button(element, 'Try again').click();
    await phase(element, 'paying');
    const purchases = await purchasesOf(wallet.address);
    expect(purchases).to.have.length(1);
    expect(text(element, 'purchase')).to.contain('8 eEUR on Kassa Local One');
    expect(await walletRecord<string[]>(wallet.id, 'signed'), 'signed once').to.have.length(1);
  });

  it('another account chosen in the wallet while it signs: the purchase is dropped, said, and the late signature used for nothing; another network changes nothing', async () => {
    const wallet = await fresh({ holdSign: true });
    const element = await connected(await mountOnramp(), wallet);
    await typeAmount(element, '4');
    button(element, 'Buy 4 eEUR').click();
    await phase(element, 'signing');
    await customerInWallet(wallet.id, 'move-to', TWO);
    await element.updateComplete;
    expect(element.phase, 'the network does not matter to a signature').to.equal('signing');
    await customerInWallet(wallet.id, 'use-account', 3);
    await status(element, 'Your wallet switched accounts. The stablecoins go to the account connected now.');
    expect(element.phase).to.equal('ready');
    expect(await walletRecord<string>(wallet.id, 'release')).to.equal('signed');
    // The late signature comes (a hang here meets the runner's timeout).
    while (!(await walletRecord<string[]>(wallet.id, 'signed')).length)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(element.phase, 'the late signature buys nothing').to.equal('ready');
    expect(await purchasesOf(wallet.address)).to.deep.equal([]);
  });

  it('a failed payment mints nothing and is tried again in the embedded checkout; the purchase then arrives', async () => {
    const element = await connected(await mountOnramp(), await fresh());
    await bought(element, '7');
    const checkout = await embeddedCheckout(element);
    await until(() => checkout.phase === 'ready', 'the checkout');
    const first = stayOnPage(element);
    checkout.shadowRoot!.querySelector<HTMLButtonElement>('[part="button"]')!.click();
    await until(() => !inside(element, '[part~="secondary"]'), 'no "Start over" while a payment is under way');
    await bank((await first).flowUrl, 'cancel');
    await until(() => checkout.phase === 'failed', 'the failed payment');
    expect(element.phase, 'the purchase waits for its payment').to.equal('paying');
    expect(button(element, 'Start over').getAttribute('part')).to.equal('secondary');
    // The checkout's own "Try again": a new payment of the same purchase.
    const second = stayOnPage(element);
    checkout.shadowRoot!.querySelector<HTMLButtonElement>('[part="button"]')!.click();
    await bank((await second).flowUrl, 'authorise');
    await phase(element, 'delivered');
    expect(text(element, 'status')).to.equal('7 eEUR arrived in your wallet on Kassa Local Two.');
  });

  it('a purchase not paid in time fails: nothing minted, and "Try again" starts a new one', async () => {
    const [wallet] = await onrampWallets([{ id: `states-${accounts}`, account: accounts++ }], {
      stack: SHORT_WINDOW_STACK,
    });
    const element = await connected(await mountOnramp({}, document.body, SHORT_WINDOW_STACK), wallet!);
    await bought(element, '6');
    await phase(element, 'failed');
    expect(text(element, 'status')).to.equal('This purchase was not paid in time, so nothing was minted.');
    expect(inside(element, 'kassa-checkout')).to.equal(null);
    expect(
      [...element.shadowRoot!.querySelectorAll('[part="steps"] li')].map((step) => step.getAttribute('data-state')),
    ).to.deep.equal(['failed', 'pending', 'pending']);
    button(element, 'Try again').click();
    await phase(element, 'ready');
    expect(inside<HTMLInputElement>(element, '#amount')!.value).to.equal('6');
    expect(new URL(location.href).searchParams.has('kassa_purchase')).to.equal(false);
  });

  it('an order the issuer fails: delayed, the customer told the tokens are on their way', async () => {
    const element = await connected(await mountOnramp(), await fresh());
    await bought(element, '3');
    expect((await control('/orders/faults', { kind: 'fail', times: 1 }, ONRAMP_STACK)).status).to.be.below(300);
    await payAtBank(element);
    await phase(element, 'delayed');
    expect(text(element, 'status')).to.match(/^This is taking longer than usual\. Your payment is received/);
    expect(
      [...element.shadowRoot!.querySelectorAll('[part="steps"] li')].map((step) => step.getAttribute('data-state')),
    ).to.deep.equal(['done', 'current', 'pending']);
  });

  it('the purchase attribute shows that purchase, wherever it was made; an unknown one is said so', async () => {
    const wallet = await fresh();
    const made = await purchaseElsewhere(accounts - 1, { amount: '4' });
    const token = made.body.purchaseToken as string;
    const element = await mountOnramp({ purchase: token });
    await phase(element, 'paying');
    expect(text(element, 'purchase')).to.contain('4 eEUR on Kassa Local Two');
    expect(text(element, 'purchase').toLowerCase()).to.contain(wallet.address.toLowerCase());
    const checkout = await embeddedCheckout(element);
    await until(() => checkout.phase === 'ready', 'the checkout');
    expect(checkout.shadowRoot!.querySelector('[part="amount"]')!.textContent).to.equal('€4.00');

    element.purchase = 'A'.repeat(43);
    await status(element, 'This purchase link is not valid.');
    expect(element.phase).to.equal('error');
    button(element, 'New purchase').click();
    await phase(element, 'connect');
  });
});

const part = (element: HTMLElement, name: string) => element.shadowRoot!.querySelector(`[part~="${name}"]`);

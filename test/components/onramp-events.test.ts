import { expect } from 'chai';
import type { OnrampDeliveredDetail, OnrampErrorDetail, PurchaseView } from '../../widget/kassa-onramp.ts';
import { record, stackInfo } from './support.ts';
import {
  bought,
  connected,
  mountOnramp,
  onrampWallets,
  payAtBank,
  phase,
  status,
  text,
  TWO,
  until,
} from './onramp-element.ts';

describe('<kassa-onramp>: events', () => {
  it('kassa-onramp-status (each state once) and kassa-onramp-delivered bubble and are composed, out of any shadow root; a new element on the page tells the delivery again', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const root = host.attachShadow({ mode: 'open' });
    try {
      const [wallet] = await onrampWallets([{ id: 'events', account: 40 }]);
      const element = await connected(await mountOnramp({}, root), wallet!);
      const heard = record(
        document,
        'kassa-onramp-status',
        'kassa-onramp-delivered',
        'kassa-payment-created',
        'kassa-completed',
      );
      await bought(element, '2');
      await payAtBank(element);
      await phase(element, 'delivered');

      for (const { event, origin } of heard) {
        expect(event.bubbles && event.composed, event.type).to.equal(true);
        // Retargeted to the element at the document: the page sees <kassa-onramp>, not its insides.
        expect(event.target, event.type).to.equal(host);
        if (event.type.startsWith('kassa-onramp-')) expect(origin === element, event.type).to.equal(true);
      }
      const types = heard.map(({ event }) => event.type);
      expect(
        types.filter((type) => type === 'kassa-payment-created'),
        'the embedded checkout’s',
      ).to.have.length(1);
      expect(types).to.include('kassa-completed');
      const states = heard
        .filter(({ event }) => event.type === 'kassa-onramp-status')
        .map(({ event }) => (event.detail as PurchaseView).state);
      expect(states[0]).to.equal('awaiting_payment');
      expect(states.at(-1)).to.equal('delivered');
      expect(new Set(states).size).to.equal(states.length);
      const delivered = heard.filter(({ event }) => event.type === 'kassa-onramp-delivered');
      expect(delivered).to.have.length(1);
      const detail = delivered[0]!.event.detail as OnrampDeliveredDetail;
      expect(Object.keys(detail).sort()).to.deep.equal([
        'amount',
        'chainId',
        'purchaseId',
        'symbol',
        'txHash',
        'wallet',
      ]);
      expect(detail).to.deep.include({ amount: '2', symbol: 'eEUR', chainId: TWO });
      expect(detail.purchaseId).to.match(/^pur_/);

      // Another element on the page (a reload, another tab: the purchase's link is in the address).
      element.remove();
      const again = await mountOnramp({}, root);
      await phase(again, 'delivered');
      await until(() => heard.filter(({ event }) => event.type === 'kassa-onramp-delivered').length === 2, 'again');
      const repeated = heard.filter(({ event }) => event.type === 'kassa-onramp-delivered')[1]!.event.detail;
      expect(repeated).to.deep.equal(detail, 'the same delivery: de-duplicate on txHash');
      expect(text(again, 'hash')).to.equal(detail.txHash);
    } finally {
      host.remove();
    }
  });

  // Heard on the document from the start: a misconfigured element says so in its first update.
  const errorOf = (heard: ReturnType<typeof record>, element: HTMLElement) =>
    until(() => heard.find(({ event }) => event.target === element)?.event.detail as OnrampErrorDetail, 'its error');

  it('kassa-error when the proxy cannot be reached, and when the element is misconfigured', async () => {
    const heard = record(document, 'kassa-error');

    const unreachable = await mountOnramp({ proxy: 'http://127.0.0.1:9' });
    await status(unreachable, "We can't reach the shop's payment service. Check your connection and try again.");
    expect(await errorOf(heard, unreachable)).to.deep.include({ kind: 'unreachable', stage: 'config', status: 0 });
    expect(unreachable.phase).to.equal('error');

    const wrong = await mountOnramp({ proxy: 'not a url' });
    await status(wrong, 'This purchase form is not set up correctly.');
    expect(await errorOf(heard, wrong)).to.deep.equal({
      kind: 'misconfigured',
      stage: 'config',
      status: 0,
      code: 'proxy-attribute',
      message: 'proxy must be the URL of the Kassa proxy',
    });
  });

  it('kassa-error when the proxy has no on-ramp: the customer is told it is not available here (404)', async () => {
    const heard = record(document, 'kassa-error');
    // The main stack's proxy runs without KASSA_ONRAMP_COINS.
    const off = await mountOnramp({ proxy: (await stackInfo()).proxy });
    await status(off, 'Buying stablecoins is not available here.');
    expect(await errorOf(heard, off)).to.deep.include({
      kind: 'misconfigured',
      stage: 'config',
      status: 404,
      code: 'onramp-off',
    });
  });
});

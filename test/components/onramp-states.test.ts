import { expect } from 'chai';
import type { OnrampDeliveredDetail, PurchaseView } from '../../widget/kassa-onramp.ts';
import { record } from './support.ts';
import {
  balanceOf,
  bought,
  button,
  connected,
  inside,
  mountOnramp,
  onrampStack,
  onrampWallets,
  payAtBank,
  phase,
  status,
  text,
  TWO,
  typeAmount,
  until,
  walletRecord,
} from './onramp-element.ts';

describe('<kassa-onramp>: states', () => {
  it('buys 25 eEUR on Kassa Local Two: signed, paid at the bank, minted, delivered with its hash and the new balance', async () => {
    const { config } = await onrampStack();
    const token = config.chains.find((chain) => chain.chainId === TWO)!.tokens.eEUR!;
    const [wallet] = await onrampWallets([{ id: 'buyer', account: 11 }]);
    const before = await balanceOf(TWO, token.address, wallet!.address);
    const element = await connected(await mountOnramp(), wallet!);
    const seen = record(element, 'kassa-onramp-status', 'kassa-onramp-delivered');
    await bought(element, '25');
    const [message] = await walletRecord<string[]>('buyer', 'signed');
    expect(message).to.contain(`${location.host} wants you to sign in with your Ethereum account:\n${wallet!.address}`);
    expect(message).to.contain('Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to this address.');
    await payAtBank(element);
    await phase(element, 'delivered', 30_000);
    expect(text(element, 'status')).to.equal('25 eEUR arrived in your wallet on Kassa Local Two.');
    const after = await balanceOf(TWO, token.address, wallet!.address);
    expect(after - before).to.equal(25n * 10n ** 18n);
    const delivered = seen.filter(({ event }) => event.type === 'kassa-onramp-delivered');
    expect(delivered).to.have.length(1);
    const detail = delivered[0]!.event.detail as OnrampDeliveredDetail;
    expect(detail).to.deep.include({ amount: '25', symbol: 'eEUR', chainId: TWO });
    expect(detail.wallet.toLowerCase()).to.equal(wallet!.address.toLowerCase());
    expect(detail.txHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(text(element, 'hash')).to.equal(detail.txHash);
    await until(() => inside(element, '[data-field="new-balance"]'), 'the new balance');
    const states = seen
      .filter(({ event }) => event.type === 'kassa-onramp-status')
      .map(({ event }) => (event.detail as PurchaseView).state);
    expect(states[0]).to.equal('awaiting_payment');
    expect(states.at(-1)).to.equal('delivered');
    expect(new URL(location.href).searchParams.get('kassa_purchase')).to.match(/^[\w-]{43}$/);
    void status;
    void typeAmount;
    void button;
  });
});

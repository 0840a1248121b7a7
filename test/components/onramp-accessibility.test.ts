import { expect } from 'chai';
import type { KassaOnramp } from '../../widget/kassa-onramp.ts';
import { axeViolations } from './bridge-panel.ts';
import { bank, stayOnPage } from './support.ts';
import {
  bought,
  connected,
  embeddedCheckout,
  inside,
  mountOnramp,
  onrampWallets,
  payAtBank,
  phase,
  status,
  text,
  SHORT_WINDOW_STACK,
  typeAmount,
  until,
} from './onramp-element.ts';

async function expectAccessible(element: KassaOnramp): Promise<void> {
  expect(await axeViolations(element), `${element.phase} ${element.theme}`).to.deep.equal([]);
}

let accounts = 70;
const wallet = async (options: Record<string, unknown> = {}) =>
  (await onrampWallets([{ id: `a11y-${accounts}`, account: accounts++, ...options }]))[0]!;

/** Each state the customer can see, reached for real. */
const STATES: Record<string, (theme: string) => Promise<KassaOnramp>> = {
  connect: async (theme) => {
    await onrampWallets([
      { id: `a11y-${accounts}`, account: accounts++ },
      { id: `a11y-${accounts}`, account: accounts++, icon: 'not an image' },
    ]);
    return phase(await mountOnramp({ theme }), 'connect');
  },
  'no wallet': async (theme) => {
    const element = await mountOnramp({ theme });
    await until(() => /No wallet found/.test(text(element, 'status')), 'no wallet');
    return element;
  },
  ready: async (theme) => {
    const element = await connected(await mountOnramp({ theme }), await wallet());
    await typeAmount(element, '501');
    return element;
  },
  refused: async (theme) => {
    const element = await connected(await mountOnramp({ theme }), await wallet({ rejectSign: true }));
    await typeAmount(element, '2');
    inside(element, '[part="button"]')!.click();
    return status(element, 'You declined to sign in your wallet. Nothing was bought.');
  },
  paying: async (theme) => {
    const element = await bought(await connected(await mountOnramp({ theme }), await wallet()), '2');
    const checkout = await embeddedCheckout(element);
    await until(() => checkout.phase === 'ready', 'the checkout');
    return element;
  },
  delivered: async (theme) => {
    const element = await bought(await connected(await mountOnramp({ theme }), await wallet()), '2');
    await payAtBank(element);
    await phase(element, 'delivered');
    await until(() => inside(element, '[data-field="new-balance"]'), 'the new balance');
    return element;
  },
  'payment failed': async (theme) => {
    const element = await bought(await connected(await mountOnramp({ theme }), await wallet()), '2');
    const checkout = await embeddedCheckout(element);
    await until(() => checkout.phase === 'ready', 'the checkout');
    const created = stayOnPage(element);
    checkout.shadowRoot!.querySelector<HTMLButtonElement>('[part="button"]')!.click();
    await bank((await created).flowUrl, 'cancel');
    await until(() => checkout.phase === 'failed', 'the failed payment');
    return element;
  },
  'not paid in time': async (theme) => {
    const [payer] = await onrampWallets([{ id: `a11y-${accounts}`, account: accounts++ }], {
      stack: SHORT_WINDOW_STACK,
    });
    const element = await connected(await mountOnramp({ theme }, document.body, SHORT_WINDOW_STACK), payer!);
    await bought(element, '2');
    return phase(element, 'failed');
  },
  error: async (theme) => phase(await mountOnramp({ theme, proxy: 'http://127.0.0.1:9' }), 'error'),
};

describe('<kassa-onramp>: accessibility', () => {
  for (const theme of ['light', 'dark'])
    for (const [name, reach] of Object.entries(STATES))
      it(`${name}, ${theme}: no axe violation`, async () => {
        await expectAccessible(await reach(theme));
      });

  it('the amount field is labelled, says its problem, and Enter in it buys', async () => {
    const element = await connected(await mountOnramp(), await wallet());
    const input = inside<HTMLInputElement>(element, '#amount')!;
    expect(input.labels?.[0]?.textContent?.trim()).to.equal('You receive');
    await typeAmount(element, '0.1');
    expect(input.getAttribute('aria-invalid')).to.equal('true');
    const described = input
      .getAttribute('aria-describedby')!
      .split(' ')
      .map((id) => inside(element, `#${id}`)!.textContent.trim());
    expect(described).to.deep.equal(['The smallest purchase is 1 eEUR.', described[1]]);
    await typeAmount(element, '2');
    input.focus();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
    await phase(element, 'paying');
  });
});

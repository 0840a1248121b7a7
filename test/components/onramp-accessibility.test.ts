import { expect } from 'chai';
import type { KassaOnramp } from '../../widget/kassa-onramp.ts';
import { axeViolations } from './bridge-panel.ts';
import { bank, stayOnPage } from './support.ts';
import {
  bought,
  button,
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

/** anvil's account 1: an address to type (nothing is signed for it here). */
const ANVIL_ONE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Types as a customer does into a field of the element. */
function type(field: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

/** No wallet in the browser: "Use an address", `address` typed, "Continue". */
async function addressTyped(element: KassaOnramp, address: string): Promise<KassaOnramp> {
  await until(() => /No wallet found/.test(text(element, 'status')), 'no wallet');
  button(element, 'Use an address').click();
  type(await until(() => inside<HTMLInputElement>(element, '#address'), 'the address field'), address);
  button(element, 'Continue').click();
  return element;
}

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
  'an address typed': async (theme) => {
    const element = await addressTyped(await mountOnramp({ theme }), '0x12');
    await until(() => inside(element, '#address')?.getAttribute('aria-invalid') === 'true', 'the address refused');
    return element;
  },
  'an address signing in a wallet app': async (theme) => {
    const element = await addressTyped(await mountOnramp({ theme }), ANVIL_ONE);
    await phase(element, 'ready');
    await typeAmount(element, '2');
    inside(element, '[part="button"]')!.click();
    const field = await until(() => inside<HTMLTextAreaElement>(element, '#signature'), 'the signature field');
    type(field, '0x1234');
    button(element, 'Confirm purchase').click();
    await until(() => field.getAttribute('aria-invalid') === 'true', 'the signature refused');
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

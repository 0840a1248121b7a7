import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import { expect } from 'chai';
import type { KassaBridge } from '../../widget/kassa-bridge.ts';
import {
  axeViolations,
  button,
  connected,
  focused,
  inside,
  installWallets,
  mountPanel,
  part,
  phase,
  reviewed,
  text,
  typeAmount,
  until,
  walletAction,
} from './bridge-panel.ts';

async function expectAccessible(element: KassaBridge): Promise<void> {
  expect(await axeViolations(element), `${element.phase} ${element.theme}`).to.deep.equal([]);
}

let accounts = 0;
/** Each state the user can see, reached for real. */
const STATES: Record<string, (theme: string) => Promise<KassaBridge>> = {
  connect: async (theme) => {
    await installWallets([
      { id: `a11y-${++accounts}`, account: 2 },
      { id: `a11y-${++accounts}`, account: 2, icon: 'not an image' },
    ]);
    return phase(await mountPanel({ theme }), 'connect');
  },
  'no wallet': async (theme) => {
    const element = await mountPanel({ theme });
    await until(() => /No wallet found/.test(text(element, 'status')), 'no wallet');
    return element;
  },
  ready: async (theme) => {
    const [wallet] = await installWallets([{ id: `a11y-${++accounts}`, account: 2 }]);
    const element = await connected(await mountPanel({ theme }), wallet!);
    await typeAmount(element, '99999999');
    await until(() => inside(element, '#amount-problem'), 'the amount’s problem');
    return element;
  },
  review: async (theme) => {
    const [wallet] = await installWallets([{ id: `a11y-${++accounts}`, account: 2, chainId: 31338 }]);
    const element = await connected(await mountPanel({ theme }), wallet!);
    return reviewed(element, '1');
  },
  submitted: async (theme) => {
    const id = `a11y-${++accounts}`;
    const [wallet] = await installWallets([{ id, account: 2, send: 'hold' }]);
    const element = await reviewed(await connected(await mountPanel({ theme }), wallet!), '0.01');
    button(element, 'Confirm in wallet').click();
    await phase(element, 'submitted');
    // Let the transfer go once checked (the test's cleanup removes the panel).
    setTimeout(() => void walletAction(id, 'release'), 0);
    return element;
  },
  arrived: async (theme) => {
    const [wallet] = await installWallets([{ id: `a11y-${++accounts}`, account: 2 }]);
    const element = await reviewed(await connected(await mountPanel({ theme }), wallet!), '0.01');
    button(element, 'Confirm in wallet').click();
    return phase(element, 'arrived');
  },
  failed: async (theme) => {
    const [wallet] = await installWallets([{ id: `a11y-${++accounts}`, account: 2, gasLimit: '30000' }]);
    const element = await reviewed(await connected(await mountPanel({ theme }), wallet!), '0.01');
    button(element, 'Confirm in wallet').click();
    return phase(element, 'failed');
  },
  error: async (theme) => phase(await mountPanel({ theme, proxy: 'http://127.0.0.1:9' }), 'error'),
};

describe('<kassa-bridge>: accessibility', () => {
  afterEach(() => emulateMedia({ colorScheme: 'light' }));

  for (const theme of ['light', 'dark']) {
    for (const [state, reach] of Object.entries(STATES)) {
      it(`no axe violations: ${state}, ${theme}`, async () => {
        await expectAccessible(await reach(theme));
      });
    }
  }

  it('no axe violations with the system in dark mode (theme auto): the form', async () => {
    await emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(await STATES.ready!('auto'));
  });

  it('the status line is one polite live region through every phase, so each change is announced', async () => {
    const [wallet] = await installWallets([{ id: 'announcer', account: 2 }]);
    const element = await mountPanel();
    await phase(element, 'connect');
    const status = part(element, 'status')!;
    expect([status.getAttribute('role'), status.getAttribute('aria-live')]).to.deep.equal(['status', 'polite']);
    await connected(element, wallet!);
    await reviewed(element, '0.01');
    button(element, 'Confirm in wallet').click();
    await phase(element, 'arrived');
    expect(part(element, 'status') === status, 'the same element').to.equal(true);
    expect(status.textContent.trim()).to.equal('0.01 eUSD arrived on Kassa Local Two.');
  });

  it('keyboard only: Tab to a wallet, Enter connects, type the amount, Enter reviews, and the same button confirms; focus is always visible', async () => {
    const before = document.createElement('button');
    before.textContent = 'before';
    document.body.append(before);
    try {
      const [wallet] = await installWallets([{ id: 'keyboard', account: 2 }]);
      const element = await mountPanel();
      await phase(element, 'connect');
      before.focus();
      await sendKeys({ press: 'Tab' });
      const choice = button(element, wallet!.name);
      expect(focused(element, choice), 'the wallet button has focus').to.equal(true);
      const ring = getComputedStyle(choice);
      expect([ring.outlineStyle, ring.outlineWidth]).to.deep.equal(['solid', '3px']);
      await sendKeys({ press: 'Enter' });
      await phase(element, 'ready');
      const amount = inside<HTMLInputElement>(element, '#amount')!;
      await until(() => focused(element, amount), 'focus on the amount after connecting');
      expect(getComputedStyle(amount).outlineStyle).to.equal('solid');
      await until(() => /^Balance/.test(text(element, 'balance')), 'the balance');
      await sendKeys({ type: '0.02' });
      await sendKeys({ press: 'Enter' });
      await phase(element, 'review');
      const main = part(element, 'button')!;
      main.focus();
      expect(main.textContent.trim()).to.equal('Confirm in wallet');
      await sendKeys({ press: 'Enter' });
      await until(() => element.phase !== 'review', 'the transfer to start');
      expect(focused(element, part(element, 'button')), 'focus stays on the button while busy').to.equal(true);
      expect(part(element, 'button')!.getAttribute('aria-disabled')).to.equal('true');
      await phase(element, 'arrived');
      expect(focused(element, part(element, 'button')), 'and on "New transfer" at the end').to.equal(true);
    } finally {
      before.remove();
    }
  });

  it('the amount’s problem is tied to the field, and spinners are hidden from assistive technology', async () => {
    const [wallet] = await installWallets([{ id: 'described', account: 2, send: 'hold' }]);
    const element = await connected(await mountPanel(), wallet!);
    await typeAmount(element, 'twelve');
    const amount = inside<HTMLInputElement>(element, '#amount')!;
    expect(amount.getAttribute('aria-invalid')).to.equal('true');
    expect(
      amount
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => inside(element, `#${id}`)?.textContent?.trim()),
    ).to.deep.equal(['Enter an amount such as 12.5.', text(element, 'balance')]);
    await reviewed(element, '0.01');
    button(element, 'Confirm in wallet').click();
    await phase(element, 'submitted');
    const spinners = [...element.shadowRoot!.querySelectorAll('.spinner, .mark')];
    expect(spinners.length).to.be.greaterThan(0);
    expect(spinners.every((spinner) => spinner.getAttribute('aria-hidden') === 'true')).to.equal(true);
    await walletAction('described', 'release');
    await phase(element, 'arrived');
  });
});

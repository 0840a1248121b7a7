import { emulateMedia } from '@web/test-runner-commands';
import { expect } from 'chai';
import type { KassaBridge } from '../../widget/kassa-bridge.ts';
import {
  axeViolations,
  BRIDGE_STACK,
  button,
  connected,
  inside,
  installWallets,
  mountPanel,
  part,
  phase,
  reviewed,
  status,
  text,
  TWO,
  until,
} from './bridge-panel.ts';
import { control, record, stackInfo } from './support.ts';

const LOCALES = ['en', 'de', 'fr', 'es', 'nl'] as const;

/** Axe finds nothing, and no message is missing (a `{placeholder}` left), in each of the five languages. */
async function accessibleInEveryLanguage(element: KassaBridge, selector: string): Promise<void> {
  for (const locale of LOCALES) {
    element.locale = locale;
    await until(() => element.shadowRoot!.querySelector('[part="container"]') && element, `the panel in ${locale}`);
    await element.updateComplete;
    await until(() => inside(element, selector), `${selector} in ${locale}`);
    const shown = element.shadowRoot!.textContent;
    expect(shown, `${locale}: a message is missing`).not.to.match(/\{\w+\}/);
    expect(await axeViolations(element), `${element.phase} ${element.theme} ${locale}`).to.deep.equal([]);
  }
  element.locale = 'en';
  await element.updateComplete;
}

const relayer = (action: 'hold' | 'release', chainId = TWO) => control(`/relayer/${action}`, { chainId }, BRIDGE_STACK);

let accounts = 0;
/** A panel that sent `amount` eUSD from chain one with the wallet of anvil account `account`. */
async function sent(
  amount: string,
  attributes: Record<string, string> = {},
  account = 9,
  parent: ParentNode = document.body,
): Promise<KassaBridge> {
  const [wallet] = await installWallets([{ id: `history-${++accounts}`, account }]);
  const element = await connected(await mountPanel(attributes, parent), wallet!);
  element.timeouts = { delayed: 600 };
  await reviewed(element, amount);
  button(element, 'Confirm in wallet').click();
  return element;
}

describe('<kassa-bridge>: history, receipts, recovery, first run', () => {
  afterEach(async () => {
    await relayer('release');
    await emulateMedia({ colorScheme: 'light' });
  });

  it('arrived: a receipt with both transactions and copy buttons, the balances on both chains, the fee; the history lists it and opens it', async () => {
    // On a 360 px phone: nothing may scroll sideways, whatever the hashes' length.
    const phone = document.body.appendChild(document.createElement('div'));
    phone.style.inlineSize = '360px';
    const element = await sent('1.25', {}, 9, phone);
    await phase(element, 'arrived');
    await until(() => inside(element, '[data-field="source-balance"]'), 'the source balance');
    const fits = () => {
      const surface = part(element, 'container')!;
      return surface.scrollWidth <= surface.clientWidth && element.scrollWidth <= 360;
    };
    expect(fits(), 'the arrival fits 360 px').to.equal(true);
    const receipt = part(element, 'receipt')!;
    const hash = (field: string) => receipt.querySelector(`[data-field="${field}"] .hash`)?.textContent?.trim();
    expect(hash('source-hash')).to.equal(text(element, 'hash'));
    expect(hash('destination-hash')).to.match(/^0x[0-9a-f]{64}$/);
    expect(
      [...receipt.querySelectorAll<HTMLButtonElement>('button.copy')].map((copy) => copy.dataset.copy),
    ).to.deep.equal([hash('source-hash'), hash('destination-hash')]);
    expect(receipt.querySelector('[data-field="source-balance"]')!.textContent).to.match(/^[\d,.]+ eUSD$/);
    expect(receipt.querySelector('[data-field="destination-balance"]')!.textContent).to.match(/^[\d,.]+ eUSD$/);
    const fee = receipt.querySelector<HTMLElement>('[data-field="paid-fee"]')!;
    expect(fee.title).to.match(/^0\.\d+ ETH$/);
    expect(
      fee.textContent
        .trim()
        .replace(/^0\.0*/, '')
        .replace(' ETH', '').length,
    ).to.be.at.most(4);
    // The sandbox's chain listing names its explorer: each transaction links its page there.
    const { sandbox } = await stackInfo(BRIDGE_STACK);
    expect(
      [...receipt.querySelectorAll<HTMLAnchorElement>('a')].map((link) => [link.href, link.target, link.rel]),
    ).to.deep.equal([
      [`${sandbox}/explorer/31337/tx/${hash('source-hash')}`, '_blank', 'noopener noreferrer'],
      [`${sandbox}/explorer/31338/tx/${hash('destination-hash')}`, '_blank', 'noopener noreferrer'],
    ]);

    button(element, 'New transfer').click();
    await phase(element, 'ready');
    const entry = await until(() => part(element, 'history')?.querySelector('li'), 'the history');
    expect(entry.dataset.state).to.equal('arrived');
    expect(entry.dataset.id).to.equal(hash('source-hash'));
    entry.querySelector('button')!.click();
    await until(() => part(element, 'detail'), 'the receipt opened');
    expect(part(element, 'detail')!.querySelector('[data-field="destination-hash"] .hash')!.textContent).to.equal(
      hash('destination-hash'),
    );
    expect(inside(element, '#amount'), 'the form is closed meanwhile').to.equal(null);
    expect(fits(), 'the receipt fits 360 px').to.equal(true);
    button(element, 'Back').click();
    await until(() => inside(element, '#amount'), 'the form again');
    expect(fits(), 'the form and the history fit 360 px').to.equal(true);
    phone.remove();
  });

  it('delayed, then refunded: the words, the steps, the events, and the history says so', async () => {
    await relayer('hold');
    const heard = record(document, 'kassa-bridge-delayed', 'kassa-bridge-refunded');
    const element = await sent('2', {}, 5);
    await phase(element, 'delayed');
    await status(element, /^This is taking longer than usual\. Your tokens are safe/);
    expect(button(element, 'Transfer under way…').getAttribute('aria-disabled')).to.equal('true');
    expect(heard.map(({ event }) => event.type)).to.deep.equal(['kassa-bridge-delayed']);
    const { burnId } = heard[0]!.event.detail as { burnId: string };
    const refund = await control('/relayer/refund', { burnId }, BRIDGE_STACK);
    expect(refund.status).to.equal(200);
    await phase(element, 'refunded');
    await status(
      element,
      'The bridge could not deliver to Kassa Local Two and refunded 2 eUSD to you on Kassa Local One.',
    );
    expect(heard.map(({ event }) => event.type)).to.deep.equal(['kassa-bridge-delayed', 'kassa-bridge-refunded']);
    const steps = [...part(element, 'steps')!.querySelectorAll('li')].map((step) => step.dataset.state);
    expect(steps).to.deep.equal(['done', 'done', 'done']);
    expect(text(element, 'steps')).to.contain('Refunded on Kassa Local One');
    const refundHash = (heard[1]!.event.detail as { refundHash: string }).refundHash;
    expect(part(element, 'receipt')!.querySelector('[data-field="refund-hash"] .hash')!.textContent).to.equal(
      refundHash,
    );
    button(element, 'New transfer').click();
    const entry = await until(() => part(element, 'history')?.querySelector('li'), 'the history');
    expect(entry.dataset.state).to.equal('refunded');
  });

  it('first run: the chains and tokens, what a wallet is, the help link (http(s) only), and looking again', async () => {
    const element = await mountPanel({ 'help-url': '/help/wallets' });
    await until(() => part(element, 'first-run'), 'the first-run help');
    expect(part(element, 'first-run')!.querySelector('[data-field="offered"]')!.textContent.trim()).to.match(
      /^Move eUSD, .+ between Kassa Local One and Kassa Local Two\.$/,
    );
    expect(part(element, 'help')!.getAttribute('href')).to.equal(new URL('/help/wallets', document.baseURI).href);
    element.setAttribute('help-url', 'javascript:alert(1)');
    await element.updateComplete;
    expect(part(element, 'help'), 'only an http(s) page is linked').to.equal(null);
    const [late] = await installWallets([{ id: `history-${++accounts}`, account: 9 }], { announce: false });
    button(element, 'Look for wallets again').click();
    await until(() => part(element, 'first-run'), 'still none');
    (window as unknown as { kassaTestWallets: Record<string, { announce(): void }> }).kassaTestWallets[
      late!.id
    ]!.announce();
    await until(() => part(element, 'wallet'), 'the late wallet, without a reload');
    expect(part(element, 'first-run')).to.equal(null);
  });

  for (const theme of ['light', 'dark'] as const)
    it(`axe, ${theme}, in five languages: first run, history, a receipt, delayed, refunded`, async () => {
      await emulateMedia({ colorScheme: theme });
      const first = await mountPanel({ theme });
      await until(() => part(first, 'first-run'), 'the first run');
      await accessibleInEveryLanguage(first, '[part="first-run"]');
      first.remove();

      await relayer('hold');
      const heard = record(document, 'kassa-bridge-delayed');
      const element = await sent('0.5', { theme }, 6);
      await phase(element, 'delayed');
      await accessibleInEveryLanguage(element, '[part="progress"]');
      const { burnId } = heard[0]!.event.detail as { burnId: string };
      await control('/relayer/refund', { burnId }, BRIDGE_STACK);
      await phase(element, 'refunded');
      await accessibleInEveryLanguage(element, '[part="receipt"]');
      button(element, 'New transfer').click();
      await until(() => part(element, 'history')?.querySelector('button'), 'the history');
      await accessibleInEveryLanguage(element, '[part="history"]');
      part(element, 'history')!.querySelector('button')!.click();
      await until(() => part(element, 'detail'), 'the receipt');
      await accessibleInEveryLanguage(element, '[part="detail"]');
    });
});

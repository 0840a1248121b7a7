import { expect } from 'chai';
import type { CheckoutErrorDetail } from '../../widget/kassa-checkout.ts';
import { mountPanel, phase as panelPhase } from './bridge-panel.ts';
import { mountOnramp, phase as onrampPhase } from './onramp-element.ts';
import { mount, phase, readyCheckout, record, stackInfo, text, until } from './support.ts';

/**
 * A shop set up so that an element cannot work: the customer reads the element's usual friendly
 * words; the page hears `kassa-error` with kind `misconfigured` and a `code`; and the console warns
 * the page's developer which setting to change.
 */

/** The element's `kassa-error`, and the console's warning that names `setting`. */
async function told(element: HTMLElement, heard: ReturnType<typeof record>, warnings: string[], setting: string) {
  const detail = await until(
    () => heard.find(({ origin }) => origin === element)?.event.detail as CheckoutErrorDetail | undefined,
    'its kassa-error',
  );
  const warning = await until(
    () => warnings.find((line) => line.includes(`<${element.localName}>`) && line.includes(setting)),
    () => `a console warning naming ${setting} (warnings: ${JSON.stringify(warnings)})`,
  );
  expect(warning).to.include(`kassa-error code "${detail.code}"`);
  return detail;
}

describe('misconfigured elements: kassa-error with a code, a console warning naming the setting', () => {
  let warnings: string[];
  let heard: ReturnType<typeof record>;
  // The console's warnings are what is tested: recorded while each test runs, then the console put back.
  const warn = console.warn;
  beforeEach(() => {
    const seen: string[] = (warnings = []);
    console.warn = (...args: unknown[]) => {
      seen.push(args.map(String).join(' '));
      warn.apply(console, args);
    };
    heard = record(document, 'kassa-error', 'kassa-bridge-error');
  });
  afterEach(() => (console.warn = warn));

  it('an open amount on a proxy without KASSA_OPEN_AMOUNT', async () => {
    const { proxy } = await stackInfo('closed', { KASSA_OPEN_AMOUNT: 'off' });
    const element = mount({ proxy, amount: '25', currency: 'EUR', reference: 'DONATION' });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal("This shop can't take this payment here.");
    expect(await told(element, heard, warnings, 'KASSA_OPEN_AMOUNT')).to.deep.include({
      kind: 'misconfigured',
      code: 'open-amount-off',
      status: 0,
    });
  });

  it('an open amount in a currency the proxy does not take', async () => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy, currency: 'USD', reference: 'DONATION' });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal("This shop can't take this payment here.");
    const detail = await told(element, heard, warnings, 'currency attribute');
    expect(detail).to.deep.include({ kind: 'misconfigured', code: 'currency-not-accepted' });
    expect(detail.message).to.equal('the proxy takes EUR only');
  });

  it('a return URL the proxy does not allow: refused when the customer pays', async () => {
    const element = await readyCheckout({ 'return-url': 'https://elsewhere.example/back' });
    element.shadowRoot!.querySelector<HTMLButtonElement>('[part="button"]')!.click();
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal('The payment could not be started.');
    expect(await told(element, heard, warnings, 'KASSA_RETURN_URLS')).to.deep.include({
      kind: 'misconfigured',
      code: 'return-url-not-allowed',
      status: 400,
    });
  });

  it('a checkout without proxy or checkout attributes', async () => {
    const noProxy = mount({ proxy: 'not a url', checkout: 'chk_x' });
    await phase(noProxy, 'error');
    expect(await told(noProxy, heard, warnings, 'proxy attribute')).to.deep.include({ code: 'proxy-attribute' });
    const { proxy } = await stackInfo();
    const nothing = mount({ proxy });
    await phase(nothing, 'error');
    expect(text(nothing, 'status')).to.equal('This payment is not set up correctly.');
    expect(await told(nothing, heard, warnings, 'Set checkout')).to.deep.include({ code: 'checkout-attribute' });
  });

  it('an on-ramp on a proxy without KASSA_ONRAMP_COINS', async () => {
    const element = await mountOnramp({ proxy: (await stackInfo()).proxy });
    await onrampPhase(element, 'error');
    expect(text(element, 'status')).to.equal('Buying stablecoins is not available here.');
    expect(await told(element, heard, warnings, 'KASSA_ONRAMP_COINS')).to.deep.include({
      kind: 'misconfigured',
      code: 'onramp-off',
      status: 404,
    });
  });

  it('a wallet panel on a network that does not exist', async () => {
    const element = await mountPanel({ network: 'moon' });
    await panelPhase(element, 'error');
    expect(text(element, 'status')).to.equal('This transfer panel is not set up correctly.');
    expect(await told(element, heard, warnings, 'network attribute to test or main')).to.deep.include({
      kind: 'misconfigured',
      code: 'network-attribute',
    });
  });
});

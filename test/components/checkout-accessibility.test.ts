import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import { expect } from 'chai';
import type { KassaCheckout } from '../../widget/kassa-checkout.ts';
import {
  bank,
  createCheckout,
  framed,
  holdAtBank,
  mount,
  part,
  phase,
  readyCheckout,
  stackInfo,
  stayOnPage,
  until,
} from './support.ts';

interface AxeResults {
  violations: Array<{
    id: string;
    impact: string;
    help: string;
    nodes: Array<{ target: unknown; failureSummary: string }>;
  }>;
}
type Axe = { run(context: Element, options?: object): Promise<AxeResults> };

/** axe-core, loaded into a window the way a page loads it. */
async function axeIn(target: Window): Promise<Axe> {
  const global = target as Window & { axe?: Axe };
  if (!global.axe) {
    await new Promise((resolve, reject) => {
      const script = target.document.createElement('script');
      script.src = '/node_modules/axe-core/axe.min.js';
      script.onload = resolve;
      script.onerror = reject;
      target.document.head.append(script);
    });
  }
  return global.axe!;
}

async function expectAccessible(element: KassaCheckout, where: Window = window): Promise<void> {
  const axe = await axeIn(where);
  const { violations } = await axe.run(element, { resultTypes: ['violations'] });
  const found = violations.map(
    ({ id, help, nodes }) => `${id} (${help}): ${nodes.map((node) => node.failureSummary).join('; ')}`,
  );
  expect(found, `${element.phase} ${element.theme}`).to.deep.equal([]);
}

/** Each state a customer can see, reached for real. */
const STATES: Record<string, (attributes: Record<string, string>) => Promise<KassaCheckout>> = {
  ready: (attributes) => readyCheckout(attributes),
  authorising: async (attributes) => {
    const element = await readyCheckout(attributes);
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    await created;
    return phase(element, 'authorising');
  },
  completed: async (attributes) => {
    const element = await readyCheckout(attributes);
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    await bank((await created).flowUrl, 'authorise');
    await phase(element, 'completed');
    await until(() => part(element, 'receipt'), 'the receipt');
    return element;
  },
  'pay with your phone': async (attributes) => {
    const element = await readyCheckout(attributes);
    await until(() => part(element, 'secondary'), '"Pay with your phone"');
    part(element, 'secondary')!.click();
    await phase(element, 'phone');
    await until(() => part(element, 'qr'), 'the QR code');
    return element;
  },
  'open amount, out of bounds': async (attributes) => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy, reference: 'DONATION', ...attributes });
    await phase(element, 'ready');
    const input = await until(() => part(element, 'amount-input') as HTMLInputElement | undefined, 'the field');
    input.value = '600';
    input.dispatchEvent(new Event('input'));
    await element.updateComplete;
    return element;
  },
  failed: async (attributes) => {
    const element = await readyCheckout(attributes);
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    await bank((await created).flowUrl, 'authorise', 'bank_sandbox_rejects');
    return phase(element, 'failed');
  },
  error: async (attributes) => phase(mount({ proxy: 'http://127.0.0.1:9', checkout: 'chk_x', ...attributes }), 'error'),
};

describe('<kassa-checkout>: accessibility', () => {
  afterEach(() => emulateMedia({ colorScheme: 'light' }));

  for (const theme of ['light', 'dark']) {
    for (const [state, reach] of Object.entries(STATES)) {
      it(`no axe violations: ${state}, ${theme}`, async () => {
        await expectAccessible(await reach({ theme }));
      });
    }
  }

  it('no axe violations: waiting for the bank, after the return (with the system in dark mode)', async () => {
    await emulateMedia({ colorScheme: 'dark' });
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const page = await framed({ proxy, checkout });
    const element = await page.element();
    await phase(element, 'ready');
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    const { flowUrl, transactionId } = await created;
    const held = await holdAtBank(transactionId);
    const { location } = await bank(flowUrl, 'authorise');
    const back = await phase(await page.visit(location!), 'waiting');
    await expectAccessible(back, page.iframe.contentWindow!);
    await held.release();
  });

  it('the status line is a polite live region from the start, so every change is announced', async () => {
    const element = await readyCheckout();
    const status = part(element, 'status')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.getAttribute('aria-live')).to.equal('polite');
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    await created;
    await phase(element, 'authorising');
    expect(part(element, 'status')).to.equal(status);
    expect(status.textContent.trim()).to.equal('Finish the payment at your bank.');
  });

  it('keyboard: Tab reaches the button with a visible focus ring, Enter pays, and focus stays on it while busy', async () => {
    const before = document.createElement('button');
    before.textContent = 'before';
    document.body.append(before);
    try {
      const element = await readyCheckout();
      before.focus();
      await sendKeys({ press: 'Tab' });
      const button = part(element, 'button')!;
      expect(element.shadowRoot!.activeElement).to.equal(button);
      const ring = getComputedStyle(button);
      expect(ring.outlineStyle).to.equal('solid');
      expect(ring.outlineWidth).to.equal('3px');
      // Each phase as it is rendered: the payment may be made before the key press is reported back.
      const seen: Array<{ phase: string; busy: string | null; focused: boolean }> = [];
      const note = () => {
        const shown = part(element, 'button');
        seen.push({
          phase: element.phase,
          busy: shown?.getAttribute('aria-disabled') ?? null,
          focused: Boolean(shown) && element.shadowRoot!.activeElement === shown,
        });
      };
      const watch = new MutationObserver(note);
      watch.observe(element, { attributes: true, attributeFilter: ['phase'] });
      const created = stayOnPage(element);
      await sendKeys({ press: 'Enter' });
      await created;
      await phase(element, 'authorising');
      await element.updateComplete;
      // The last change may not have been delivered to the observer yet.
      if (watch.takeRecords().length) note();
      watch.disconnect();
      expect(seen.slice(0, 2).map((step) => [step.phase, step.focused])).to.deep.equal([
        ['creating', true],
        ['authorising', true],
      ]);
      expect(seen[0]!.busy).to.equal('true', 'busy while the payment is made');
    } finally {
      before.remove();
    }
  });

  it('the spinner is hidden from assistive technology', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    part(element, 'button')!.click();
    await element.updateComplete;
    const spinners = [...element.shadowRoot!.querySelectorAll('.spinner')];
    expect(spinners.length).to.be.greaterThan(0);
    expect(spinners.every((spinner) => spinner.getAttribute('aria-hidden') === 'true')).to.equal(true);
    await created;
  });
});

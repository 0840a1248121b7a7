/**
 * Counter mode in Chromium: a till's tablet (a browser profile with a passkey) signs in on the
 * counter, the clerk types an amount and a note, and the counter shows the QR code; a phone (a second
 * browser context) reads the code, opens the link and pays at the sandbox bank; the counter follows
 * it (opened, at the bank, paid) and the next customer gets the amount field back; a payment cancelled
 * at the bank shows as not paid, and is asked for again. Both themes axe-clean, no layout shift while
 * it changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { WORDS } from '../../proxy/operator/signin/words/index.ts';
import { answerAtBank } from './support/bank.ts';
import { decodeQrImage } from './support/phone.ts';
import { axeViolations } from '../support/axe.ts';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { browserWithPasskeys } from '../support/passkey-browser.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { invite } from '../support/signin.ts';

const en = WORDS.en;

/**
 * What the counter page records as it changes, in the page: each state its payment panel shows, and
 * the layout shifts no input caused (PerformanceObserver's `layout-shift`).
 */
async function recordCounter(page: Page): Promise<void> {
  await page.evaluate(() => {
    /** Each state shown; each shift, with what moved (the node, and when it moved after the page's start). */
    const record = { states: [] as string[], shifts: [] as string[] };
    (window as unknown as { counterRecord: typeof record }).counterRecord = record;
    const panel = document.querySelector<HTMLElement>('[data-counter-payment]')!;
    new MutationObserver(() => {
      if (!panel.hidden && record.states.at(-1) !== panel.dataset.state) record.states.push(panel.dataset.state!);
    }).observe(panel, { attributes: true, attributeFilter: ['data-state', 'hidden'] });
    new PerformanceObserver((list) => {
      type Shift = PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources: Array<{ node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }>;
      };
      for (const entry of list.getEntries() as Shift[])
        if (!entry.hadRecentInput)
          record.shifts.push(
            `${entry.value.toFixed(4)} in ${panel.dataset.state}: ${entry.sources
              .map(
                ({ node, previousRect: from, currentRect: to }) =>
                  `${node instanceof Element ? `${node.tagName}.${node.className}` : node?.nodeName} ${from.x},${from.y} ${from.width}x${from.height} -> ${to.x},${to.y} ${to.width}x${to.height}`,
              )
              .join('; ')}`,
          );
    }).observe({ type: 'layout-shift' });
  });
}
const recorded = (page: Page) =>
  page.evaluate(() => (window as unknown as { counterRecord: { states: string[]; shifts: string[] } }).counterRecord);

/** The counter's state, once it says `state`. */
const stateIs = (page: Page, state: string) =>
  page.locator(`[data-counter-payment][data-state="${state}"]:not([hidden])`).waitFor({ timeout: PATIENCE_MS });

describe('e2e: counter mode', () => {
  let env: ShopStack;
  let browser: Browser;
  /** Passkeys are for a domain, never an IP address: the counter is opened on localhost. */
  let origin: string;

  before(async () => {
    [env, browser] = await Promise.all([
      startShopStack({ settlementMs: 0, env: { KASSA_COUNTER: '0.50..500 EUR' } }),
      launchChromium(),
    ]);
    origin = env.stack.proxy.origin.replace('127.0.0.1', 'localhost');
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it('signed in on the tablet, an amount typed; the phone scans the QR code and pays; the counter turns paid, then takes the next customer', async () => {
    const tablet = await browserWithPasskeys(browser, 'en-GB');
    const { page } = tablet;
    // A clerk (support) makes their passkey on the tablet from their invitation, which signs them in.
    const clerk = await invite(env.stack.proxy, 'support', 'Till Clerk');
    await page.goto(`${origin}/operator/invite#${clerk.token}`);
    await page.getByLabel(en.passkeyName).fill('Till tablet');
    await page.getByRole('button', { name: en.makePasskey }).click();
    await page.getByRole('link', { name: en.counterLink }).click();
    await page.getByRole('heading', { level: 1, name: en.counterHeading }).waitFor();

    // Signed out, the counter asks for the passkey, and signed in again it is the counter.
    await page.getByRole('button', { name: en.signOut }).click();
    await page.getByRole('button', { name: en.signinPasskey }).click();
    await page.getByRole('heading', { level: 1, name: en.counterHeading }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/operator/counter');
    assert.deepEqual(await axeViolations(page, 'the counter'), []);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await axeViolations(page, 'the counter, dark'), []);
    await page.emulateMedia({ colorScheme: 'light' });

    // An amount out of the counter's bounds is refused in words, before anything is made.
    const amount = page.getByLabel('Amount (EUR)');
    await amount.fill('600');
    await page.getByRole('button', { name: en.counterShow }).click();
    await page.getByText('Enter an amount from €0.50 to €500.00.').waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');

    await amount.fill('12,50');
    await page.getByLabel(en.counterNote).fill('Table 4');
    await recordCounter(page);
    await page.getByRole('button', { name: en.counterShow }).click();
    const qr = page.getByRole('img', { name: `QR code to pay €12.50: scan it with your phone` });
    await qr.waitFor();
    await stateIs(page, 'waiting');
    assert.equal(await page.locator('[data-shown="amount"]').textContent(), '€12.50');
    assert.equal(await page.locator('[data-shown="note"]').textContent(), 'Table 4');
    assert.deepEqual(await axeViolations(page, 'the counter’s QR code'), []);

    // The phone reads the code as its camera would, and opens it.
    const phone = await browser.newContext({ locale: 'en-GB' });
    const mobile = await phone.newPage();
    const phoneProblems = watchProblems(mobile);
    const svg = await page.evaluate(async (src) => (await fetch(src)).text(), (await qr.getAttribute('src'))!);
    const scanned = await decodeQrImage(phone, `data:image/svg+xml,${encodeURIComponent(svg)}`);
    assert.match(scanned, new RegExp(`^${origin}/l/[A-Za-z0-9_-]{24}$`));
    await mobile.goto(scanned);
    assert.equal(await mobile.getByRole('heading', { level: 1 }).textContent(), 'Table 4');
    await waitForPhase(mobile, 'ready');
    await stateIs(page, 'opened');
    await mobile.getByRole('button', { name: 'Pay by bank' }).click();
    await mobile.waitForURL(/\/pay\/flow\//);
    await stateIs(page, 'authorising');
    await answerAtBank(mobile, 'Authorise payment');

    await stateIs(page, 'paid');
    assert.equal(await page.locator('[data-shown="mark"]').textContent(), `✓\n${en.counterPaid}`);
    assert.equal(await page.locator('[data-shown="state"]').textContent(), en.counterStates.paid);
    const next = page.getByRole('button', { name: en.counterNext });
    assert.equal(await next.evaluate((button) => button === document.activeElement), true, 'ready for the next');
    assert.deepEqual(await recorded(page), { states: ['waiting', 'opened', 'authorising', 'paid'], shifts: [] });
    assert.deepEqual(await axeViolations(page, 'the counter, paid'), []);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await axeViolations(page, 'the counter, paid, dark'), []);
    await page.emulateMedia({ colorScheme: 'light' });

    // The phone gets its receipt: an ordinary link payment.
    await mobile.waitForURL((url) => url.pathname === new URL(scanned).pathname, { timeout: PATIENCE_MS });
    await waitForPhase(mobile, 'completed');

    await next.click();
    await amount.waitFor();
    assert.equal(await amount.inputValue(), '');
    assert.equal(await amount.evaluate((field) => field === document.activeElement), true);
    assert.equal(await page.locator('[data-counter-payment]').isHidden(), true);

    // The next customer cancels at their bank: not paid, in red; "Try again" asks anew (a new code, the
    // same amount and note), which the clerk then cancels: nothing to pay, the amount field again.
    await amount.fill('3');
    await page.getByRole('button', { name: en.counterShow }).click();
    await stateIs(page, 'waiting');
    assert.equal(await page.locator('[data-shown="note"]').textContent(), en.counterDefaultNote);
    const firstCode = await page.locator('[data-shown="qr"]').getAttribute('src');
    const second = await phone.newPage();
    await second.goto(origin + firstCode!.replace(/\/qr\.svg$/, ''));
    await second.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(second, 'Cancel');
    await stateIs(page, 'failed');
    assert.equal(await page.locator('[data-shown="mark"]').textContent(), `✗\n${en.counterFailed}`);
    assert.deepEqual(await axeViolations(page, 'the counter, failed'), []);
    await page.getByRole('button', { name: en.counterRetry }).click();
    await page.locator(`[data-shown="qr"]:not([src="${firstCode}"])`).waitFor();
    await stateIs(page, 'waiting');
    assert.equal(await page.locator('[data-shown="amount"]').textContent(), '€3.00');
    assert.equal(await page.locator('[data-shown="note"]').textContent(), en.counterDefaultNote);
    await page.getByRole('button', { name: en.counterCancel }).click();
    await stateIs(page, 'cancelled');
    assert.equal(await page.locator('[data-shown="state"]').textContent(), en.counterStates.cancelled);
    await page.getByRole('button', { name: en.counterNext }).click();
    await amount.waitFor();

    assert.deepEqual(tablet.problems, []);
    assert.deepEqual(phoneProblems, []);
    await phone.close();
    await tablet.context.close();
  });
});

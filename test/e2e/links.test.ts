/**
 * Payment links in Chromium: the customer opens a link's page on the proxy (`/l/<code>`, under its
 * strict CSP), pays with the same kassa.js a shop uses, at the emulator's bank, and comes back to the
 * link's receipt; an open link's amount field; two customers racing for a single-use link; a link
 * with a cap on its total paid by customers in turn; an expired and a paused link's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright';
import { answerAtBank } from './support/bank.ts';
import { decodeQrImage } from './support/phone.ts';
import { axeViolations } from '../support/axe.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import type { Json } from '../support/http.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { eventually } from '../support/stack.ts';

const LESSON = { title: 'Piano lesson', amount: '45.00', currencyCode: 'EUR', reference: 'LESSON-{n}' };

describe('e2e: payment links', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 0 }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  const makeLink = async (body: Json) => {
    const made = await env.stack.merchant('/api/links', { body: { ...LESSON, ...body } });
    assert.equal(made.status, 201, made.text);
    return made.body as { code: string; url: string; qr: { svg: string; png: string } };
  };
  const linkNow = async (code: string) => (await env.stack.merchant(`/api/links/${code}`)).body;

  /** A customer's fresh browser (its own storage), on nothing yet, its problems collected. */
  async function customer(language = 'en-GB') {
    const context = await browser.newContext({ locale: language });
    const page = await context.newPage();
    const problems = watchProblems(page);
    /** Every navigation to the bank's pages (its page, the answer posted there). */
    const atBank: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest() && /\/pay\/flow\//.test(request.url())) atBank.push(request.url());
    });
    return { context, page, problems, atBank };
  }

  /** The QR code of one of the link's images, as a phone's camera reads it. */
  async function scan(context: BrowserContext, url: string): Promise<string> {
    const answer = await fetch(url);
    assert.equal(answer.status, 200);
    const type = answer.headers.get('content-type')!;
    return decodeQrImage(context, `data:${type};base64,${Buffer.from(await answer.arrayBuffer()).toString('base64')}`);
  }

  const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

  it('a fixed amount: its QR code opens the page, paid at the bank, back to the link’s receipt', async () => {
    const link = await makeLink({ description: 'One hour, Thursdays at 17:00' });
    const { context, page, problems } = await customer();
    assert.equal(await scan(context, link.qr.png), link.url, 'the PNG holds the link');
    assert.equal(await scan(context, link.qr.svg), link.url, 'the SVG holds the link');

    await page.goto(link.url);
    assert.equal(await heading(page), 'Piano lesson');
    await waitForPhase(page, 'ready');
    assert.equal(await partText(page, 'amount'), '€45.00');
    assert.equal(await partText(page, 'reference'), 'Reference: LESSON-1');
    assert.deepEqual(await axeViolations(page, 'the link’s page'), []);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(page, 'Authorise payment');

    await page.waitForURL((url) => url.pathname === `/l/${link.code}`, { timeout: PATIENCE_MS });
    await waitForPhase(page, 'completed');
    assert.doesNotMatch(page.url(), /kassa_status/, 'the status token is taken out of the address');
    assert.equal(await page.locator('main').getAttribute('data-state'), 'receipt');
    assert.match(await page.getByText('Keep this receipt').textContent().then(String), /print it, or save it as a PDF/);
    const receipt = page.locator('kassa-checkout [part~="receipt"]');
    await receipt.waitFor();
    const text = (await receipt.textContent())!.replace(/\s+/g, ' ');
    assert.match(text, /Amount\s*€45\.00/);
    assert.match(text, /Reference\s*LESSON-1/);
    assert.deepEqual(await axeViolations(page, 'the link’s receipt'), []);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await axeViolations(page, 'the link’s receipt, dark'), []);

    // Counted once; a reload in this tab shows the same receipt, holding no other use.
    const counted = await eventually(async () => {
      const now = await linkNow(link.code);
      return now.payments.count === 1 ? now : undefined;
    }, 'the link’s payment counted');
    assert.equal(counted.pending.count, 0);
    await page.reload();
    await waitForPhase(page, 'completed');
    assert.equal(await page.locator('main').getAttribute('data-state'), 'receipt');
    assert.equal((await linkNow(link.code)).pending.count, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('an open amount: one out of the link’s bounds is refused in words, one within is paid', async () => {
    const link = await makeLink({ amount: undefined, openAmount: { min: '5', max: '20' }, language: 'de' });
    const { context, page, problems } = await customer('de-DE');
    await page.goto(link.url);
    const field = page.getByRole('textbox', { name: 'Betrag (EUR)' });
    const next = page.getByRole('button', { name: 'Weiter' });
    await field.fill('25');
    await next.click();
    const status = page.locator('#kassa-link-status');
    await status.filter({ hasText: 'Geben Sie' }).waitFor();
    assert.equal(
      (await status.textContent())?.replace(/\s/g, ' '),
      'Geben Sie einen Betrag von 5,00 € bis 20,00 € ein.',
    );
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('kassa-checkout').count(), 0);
    assert.equal((await linkNow(link.code)).pending.count, 0, 'nothing held for an amount refused');

    await field.fill('12,50');
    await next.click();
    await waitForPhase(page, 'ready');
    assert.equal(await field.isHidden(), true);
    assert.equal((await partText(page, 'amount')).replace(/\s/g, ' '), '12,50 €');
    await page.getByRole('button', { name: 'Per Bank bezahlen' }).click();
    await answerAtBank(page, 'Authorise payment');
    await waitForPhase(page, 'completed');
    const paid = await eventually(async () => {
      const payments = (await env.stack.merchant(`/api/links/${link.code}/payments`)).body.payments as Json[];
      return payments[0]?.state === 'paid' ? payments : undefined;
    }, 'the open link’s payment');
    assert.deepEqual(
      paid.map((payment: Json) => [payment.amount, payment.reference]),
      [['12.50', 'LESSON-1']],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a single-use link raced by two customers: one pays, the other is told it is used before any bank', async () => {
    const link = await makeLink({ maxUses: 1 });
    const [first, second] = await Promise.all([customer(), customer()]);
    await Promise.all([first.page.goto(link.url), second.page.goto(link.url)]);
    /** What each page came to show: the checkout ready to pay, or that the link is used. */
    const outcome = (page: Page) =>
      Promise.race([
        page
          .locator('kassa-checkout[phase="ready"]')
          .waitFor({ timeout: PATIENCE_MS })
          .then(() => 'ready' as const),
        page
          .locator('main[data-state="used-up"]')
          .waitFor({ timeout: PATIENCE_MS })
          .then(() => 'used' as const),
      ]);
    const outcomes = await Promise.all([outcome(first.page), outcome(second.page)]);
    assert.deepEqual([...outcomes].sort(), ['ready', 'used']);
    const [payer, told] = outcomes[0] === 'ready' ? [first, second] : [second, first];

    assert.equal(await heading(told.page), 'This link has been used');
    await told.page.getByText('Every payment it takes has been made.').waitFor();
    assert.equal(await told.page.locator('kassa-checkout').count(), 0);

    await payer.page.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(payer.page, 'Authorise payment');
    await waitForPhase(payer.page, 'completed');
    const now = await eventually(async () => {
      const read = await linkNow(link.code);
      return read.payments.count === 1 ? read : undefined;
    }, 'the single use paid');
    assert.equal(now.status, 'used-up');
    assert.ok(payer.atBank.length > 0, 'the payer reached the bank');
    assert.deepEqual(told.atBank, [], 'the other never did');
    // The link is used up now, by the payer: whose reload still shows their receipt.
    await payer.page.reload();
    await waitForPhase(payer.page, 'completed');
    assert.equal(await heading(payer.page), 'Piano lesson');
    assert.equal(await payer.page.locator('main').getAttribute('data-state'), 'receipt');
    await payer.page.locator('kassa-checkout [part~="receipt"]').waitFor();
    assert.deepEqual([...payer.problems, ...told.problems], []);
    await Promise.all([first.context.close(), second.context.close()]);
  });

  it('a reusable link with a cap on its total: each customer within what is left, the last told it is complete', async () => {
    const link = await makeLink({ amount: undefined, openAmount: { min: '5', max: '50' }, maxTotal: '60' });
    /** A customer types an amount on the page and presses Continue. */
    const typeAmount = async (page: Page, amount: string) => {
      await page.getByRole('textbox', { name: 'Amount (EUR)' }).fill(amount);
      await page.getByRole('button', { name: 'Continue' }).click();
    };
    const pay = async (page: Page) => {
      await waitForPhase(page, 'ready');
      await page.getByRole('button', { name: 'Pay by bank' }).click();
      await answerAtBank(page, 'Authorise payment');
      await waitForPhase(page, 'completed');
    };
    // The second customer opens the page first, while all 60 are left.
    const [first, second] = [await customer(), await customer()];
    await second.page.goto(link.url);
    await second.page.getByText('You choose the amount: €5.00 to €50.00').waitFor();
    await first.page.goto(link.url);
    await typeAmount(first.page, '45');
    await pay(first.page);
    await eventually(async () => ((await linkNow(link.code)).payments.count === 1 ? true : undefined), 'the first');

    // 15 left: the second customer's 30 is refused with the bounds as they are now, then 15 is paid.
    await typeAmount(second.page, '30');
    const status = second.page.locator('#kassa-link-status');
    await status.filter({ hasText: 'Enter an amount' }).waitFor();
    assert.equal(await status.textContent(), 'Enter an amount from €5.00 to €15.00.');
    await typeAmount(second.page, '15');
    await pay(second.page);
    const complete = await eventually(async () => {
      const now = await linkNow(link.code);
      return now.payments.count === 2 ? now : undefined;
    }, 'the second');
    assert.deepEqual([complete.status, complete.payments.total], ['total-reached', '60']);

    const third = await customer('nl-NL');
    await third.page.goto(link.url);
    assert.equal(await heading(third.page), 'Deze link is vol');
    await third.page.getByText('Hij heeft alles ontvangen wat hij mag ontvangen.').waitFor();
    assert.equal(await third.page.locator('main').getAttribute('data-state'), 'total-reached');
    assert.equal(await third.page.locator('kassa-checkout').count(), 0);
    assert.deepEqual(await axeViolations(third.page, 'a complete link’s page'), []);
    assert.deepEqual([...first.problems, ...second.problems, ...third.problems], []);
    await Promise.all([first.context.close(), second.context.close(), third.context.close()]);
  });

  it('an expired link’s page says so, and offers nothing to pay', async () => {
    const link = await makeLink({ expiresAt: new Date(Date.now() + 5_000).toISOString() });
    await eventually(async () => ((await linkNow(link.code)).status === 'expired' ? true : undefined), 'the expiry');
    const { context, page, problems } = await customer('es-ES');
    await page.goto(link.url);
    assert.equal(await heading(page), 'Este enlace ha caducado');
    await page.getByText('Ya no acepta pagos. Pida un enlace nuevo al vendedor.').waitFor();
    assert.equal(await page.locator('main').getAttribute('data-state'), 'expired');
    assert.equal(await page.locator('kassa-checkout').count(), 0);
    assert.equal((await linkNow(link.code)).pending.count, 0);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await axeViolations(page, 'an expired link’s page, dark'), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a paused link’s page says so, and offers nothing to pay', async () => {
    const link = await makeLink({});
    await env.stack.merchant(`/api/links/${link.code}/pause`, { method: 'POST' });
    const { context, page, problems } = await customer('fr-FR');
    await page.goto(link.url);
    assert.equal(await heading(page), 'Ce lien est en pause');
    await page.getByText('Le vendeur l’a mis en pause pour le moment.').waitFor();
    assert.equal(await page.locator('main').getAttribute('data-state'), 'paused');
    assert.equal(await page.locator('kassa-checkout').count(), 0);
    assert.equal((await linkNow(link.code)).pending.count, 0);
    assert.deepEqual(await axeViolations(page, 'a paused link’s page'), []);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

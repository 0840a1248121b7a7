/**
 * The extension's payments view for the operator, in real Chromium against a real proxy and emulator:
 * new payments appear live as PENDING, the detail pane, the search and its CSV download, the
 * payments Kassa can no longer verify and their resolution, the 360 px side panel and 400 px popup
 * without sideways scrolling, and the Events view in German.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import {
  deviceTokenOf,
  launchExtension,
  leaks,
  overflowing,
  signIn,
  type LoadedExtension,
} from '../support/extension.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const text = (value: string | null) => (value ?? '').replace(/\s+/g, ' ').trim();

async function rowIds(page: Page): Promise<string[]> {
  return page
    .getByRole('table', { name: 'Payments' })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-transaction') ?? ''));
}

describe('extension: the payments view', () => {
  let stack: Stack;
  let extension: LoadedExtension;

  before(async () => {
    stack = await startStack();
    extension = await launchExtension();
    await signIn(extension, stack.proxy.origin, stack.admin);
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
  });

  it('a new payment appears live as PENDING, and opens in a detail pane with its id to copy', async () => {
    const page = await extension.openPage('ui/sidepanel.html?tab=payments');
    await page.setViewportSize({ width: 360, height: 800 });
    await page.getByText('Live', { exact: true }).waitFor();
    await page.getByRole('table', { name: 'Payments' }).or(page.getByText('No payments.')).waitFor();
    const { transactionId } = (await stack.pay(await stack.checkout({ reference: 'EXT-LIVE-1', amount: '12.30' })))
      .body as { transactionId: string };
    const row = page.locator(`tr[data-transaction="${transactionId}"]`);
    await row.filter({ hasText: 'PENDING' }).waitFor({ timeout: PATIENCE_MS });
    assert.equal((await rowIds(page))[0], transactionId, 'on top');
    assert.match(text(await row.textContent()), /EXT-LIVE-1 €12\.30 PENDING/);

    await row.getByRole('button', { name: 'Details of EXT-LIVE-1' }).click();
    const detail = page.locator('kassa-payment-detail');
    await detail.locator('#transaction-id').filter({ hasText: transactionId }).waitFor();
    assert.match(text(await detail.locator('section').textContent()), /Network status/);
    await detail.getByRole('button', { name: 'Copy' }).click();
    await detail.getByRole('status').filter({ hasText: 'Transaction id copied.' }).waitFor();
    // What was copied is what a paste gives.
    const field = page.getByRole('form', { name: 'Search payments' }).getByLabel('Checkout id');
    await field.focus();
    await page.keyboard.press('Control+V');
    assert.equal(await field.inputValue(), transactionId);
    await field.fill('');

    // It settles: the row and the open detail follow, the network status in words.
    await stack.control(`/payments/${transactionId}/outcome`, {
      status: 'COMPLETED',
      networkStatus: 'PAYMENT_EXECUTED_CREDITED',
    });
    await row.filter({ hasText: 'COMPLETED' }).waitFor();
    await detail.locator('#network-status').filter({ hasText: 'Paid: the money was credited' }).waitFor();
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the 360 px side panel');
    await page.close();
  });

  it('the search narrows the list, and the CSV download holds exactly the rows searched', async () => {
    const made: Record<string, string> = {};
    for (const [reference, amount] of [
      ['EXT-SEARCH-A', '10.00'],
      ['EXT-SEARCH-B', '20.00'],
      ['EXT-SEARCH-C', '30.00'],
    ] as const)
      made[reference] = (await stack.pay(await stack.checkout({ reference, amount }))).body.transactionId as string;
    const page = await extension.openPage('ui/popup.html?tab=payments');
    await page.setViewportSize({ width: 400, height: 800 });
    await page.locator(`tr[data-transaction="${made['EXT-SEARCH-C']}"]`).waitFor();
    const search = page.getByRole('form', { name: 'Search payments' });

    await search.getByLabel('Minimum amount').fill('15');
    await search.getByLabel('Maximum amount').fill('25');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.locator(`tr[data-transaction="${made['EXT-SEARCH-C']}"]`).waitFor({ state: 'detached' });
    const shown = await rowIds(page);
    assert.ok(shown.includes(made['EXT-SEARCH-B']!));
    assert.ok(!shown.includes(made['EXT-SEARCH-A']!));
    const amounts = await page
      .getByRole('table', { name: 'Payments' })
      .locator('tbody tr td:nth-child(2)')
      .allTextContents();
    assert.ok(
      amounts.every((amount) => {
        const value = Number(amount.replace(/[^\d.]/g, ''));
        return value >= 15 && value <= 25;
      }),
      amounts.join(', '),
    );
    assert.ok(
      extension.requests.some(
        (request) =>
          request.url.startsWith(`${stack.proxy.origin}/api/payments?`) &&
          new URL(request.url).searchParams.get('minAmount') === '15' &&
          new URL(request.url).searchParams.get('maxAmount') === '25',
      ),
      'the search is the proxy’s',
    );

    // Today only, by reference: the one payment; from tomorrow: none.
    const now = new Date();
    const today = [now.getFullYear(), now.getMonth() + 1, now.getDate()]
      .map((part) => String(part).padStart(2, '0'))
      .join('-');
    await search.getByLabel('Reference').fill('EXT-SEARCH-B');
    await search.getByLabel('From (day)').fill(today);
    await search.getByLabel('To (day)').fill(today);
    await search.getByRole('button', { name: 'Search' }).click();
    await eventually(async () => ((await rowIds(page)).length === 1 ? true : undefined), 'one row');
    assert.deepEqual(await rowIds(page), [made['EXT-SEARCH-B']]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^kassa-payments-.*\.csv$/);
    const csv = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/);
    assert.match(csv[0]!, /^transactionId,status,/);
    assert.equal(csv.length, 2, csv.join('\n'));
    assert.ok(csv[1]!.startsWith(`${made['EXT-SEARCH-B']},PENDING,`), csv[1]);
    await page.getByRole('status').filter({ hasText: 'downloaded.' }).waitFor();
    const exported = extension.requests.find((request) =>
      request.url.startsWith(`${stack.proxy.origin}/api/payments/export?`),
    );
    assert.ok(exported);
    assert.equal(new URL(exported.url).searchParams.get('reference'), 'EXT-SEARCH-B');
    assert.equal(exported.from, 'service worker', 'the worker calls the proxy, not the page');

    await search.getByLabel('From (day)').fill('2999-01-01');
    await search.getByLabel('To (day)').fill('2999-01-02');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No payments match this search.').waitFor();

    await search.getByLabel('Minimum amount').fill('ten');
    await search.getByRole('button', { name: 'Search' }).click();
    await search.getByRole('alert').filter({ hasText: 'Enter amounts as numbers' }).waitFor();

    await search.getByRole('button', { name: 'Clear' }).click();
    await page.locator(`tr[data-transaction="${made['EXT-SEARCH-A']}"]`).waitFor();
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the 400 px popup');
    assert.deepEqual(
      leaks(
        extension.requests.filter((request) => request.from !== 'service worker'),
        [await deviceTokenOf(extension)],
      ),
      [],
    );
    await page.close();
  });

  it('the side panel fits 360 px with a long reference, the search and the detail open', async () => {
    const reference = 'A VERY LONG REFERENCE WITHOUT/ANY-BREAKS-1234567890-1234567890';
    const { transactionId } = (await stack.pay(await stack.checkout({ reference: reference.slice(0, 35) }))).body as {
      transactionId: string;
    };
    const page = await extension.openPage('ui/sidepanel.html?tab=payments');
    await page.setViewportSize({ width: 360, height: 800 });
    const row = page.locator(`tr[data-transaction="${transactionId}"]`);
    await row.getByRole('button').click();
    await page.locator('kassa-payment-detail').waitFor();
    assert.deepEqual(await overflowing(page), []);
    assert.equal(await page.evaluate(() => document.scrollingElement!.scrollWidth), 360);
    await page.close();
  });

  it('the Events view, and the payments view, speak German when German is chosen', async (t) => {
    const settings = await extension.openPage('ui/popup.html?tab=settings');
    await settings.getByLabel('Language').selectOption('de');
    await settings.getByRole('tab', { name: 'Zahlungen' }).waitFor();
    t.after(async () => {
      await settings.getByLabel('Sprache').selectOption('auto');
      await settings.getByRole('tab', { name: 'Payments' }).waitFor();
      await settings.close();
    });
    const page = await extension.openPage('ui/sidepanel.html?tab=events');
    await page.setViewportSize({ width: 360, height: 800 });
    await page.getByRole('tab', { name: 'Ereignisse', selected: true }).waitFor();
    await page.locator('#not-configured').filter({ hasText: 'Dieser Proxy hat kein Ziel' }).waitFor();
    await page.getByText('Keine Ereignisse.').waitFor();
    await page.getByLabel('Nach Typ filtern').selectOption('checkout.paid');
    await page.getByText('Keine Ereignisse vom Typ checkout.paid.').waitFor();
    const form = page.getByRole('form', { name: 'Fehlgeschlagene Ereignisse erneut zustellen' });
    await form.getByLabel('Fehlgeschlagen seit').fill('');
    await form.getByRole('button', { name: 'Fehlgeschlagene erneut zustellen' }).click();
    await page.locator('#list-error').filter({ hasText: 'Wählen Sie Datum und Uhrzeit' }).waitFor();
    assert.deepEqual(await overflowing(page), []);

    await page.getByRole('tab', { name: 'Zahlungen' }).click();
    await page.getByRole('form', { name: 'Zahlungen suchen' }).waitFor();
    await page.getByRole('button', { name: 'CSV herunterladen' }).waitFor();
    await page.getByRole('table', { name: 'Zahlungen' }).waitFor();
    assert.deepEqual(await overflowing(page), []);
    await page.close();
  });

  it('a payment Kassa can no longer verify is listed with its reason and last webhook, and resolved', async () => {
    const reference = 'EXT-UNVERIFIABLE';
    const { transactionId } = (await stack.pay(await stack.checkout({ reference, amount: '55.00' }))).body as {
      transactionId: string;
    };
    // Its key is replaced and revoked while it is in flight; it completes upstream, but Kassa cannot read it.
    await stack.replacePayKey();
    await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(
      async () =>
        (await stack.operator('/api/payments/unverifiable')).body.payments.some(
          (entry: { payment: { transactionId: string } }) => entry.payment.transactionId === transactionId,
        ) || undefined,
      'the payment to be unverifiable',
    );
    await signIn(extension, stack.proxy.origin, stack.admin);

    const page = await extension.openPage('ui/sidepanel.html?tab=payments');
    await page.setViewportSize({ width: 360, height: 800 });
    const section = page.getByRole('region', { name: 'Unverifiable payments' });
    const entry = section.locator(`li[data-transaction="${transactionId}"]`);
    await entry.waitFor();
    assert.match(text(await entry.locator('.reason').textContent()), /does not know this payment/);
    assert.match(text(await entry.locator('.webhook').textContent()), /^COMPLETED, received /);
    assert.deepEqual(await overflowing(page), []);

    await entry.getByRole('button', { name: `Resolve ${reference}` }).click();
    const form = entry.getByRole('form', { name: `Resolve ${reference}` });
    await form.getByRole('button', { name: 'Resolve' }).click();
    await section.getByRole('alert').filter({ hasText: 'Write a note of at least 3 characters' }).waitFor();
    await form.getByLabel('Settle as').selectOption('COMPLETED');
    await form.getByLabel('Note: what the bank statement shows').fill('Bank statement of 23 November, line 14');
    await form.getByRole('button', { name: 'Resolve' }).click();
    await entry.getByText(`Mark ${reference} (€55.00) as COMPLETED?`).waitFor();
    assert.ok(
      !extension.requests.some((request) => request.url.endsWith(`/api/payments/resolutions/${transactionId}`)),
      'nothing is resolved before the confirmation',
    );
    await entry.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${reference} is now COMPLETED.` })
      .waitFor();
    await entry.waitFor({ state: 'detached' });
    await page.locator(`tr[data-transaction="${transactionId}"] .status`).filter({ hasText: 'COMPLETED' }).waitFor();

    const resolve = extension.requests.find(
      (request) =>
        request.method === 'POST' && request.url === `${stack.proxy.origin}/api/payments/resolutions/${transactionId}`,
    );
    assert.ok(resolve);
    assert.deepEqual(JSON.parse(resolve.postData), {
      status: 'COMPLETED',
      note: 'Bank statement of 23 November, line 14',
    });
    const status = await stack.operator(`/api/payments?reference=${reference}`);
    assert.equal(status.body.payments[0].status, 'COMPLETED');
    await page.close();
  });
});

/**
 * The Links view of the built extension, in real Chromium against a real proxy and emulator: a person
 * who manages links (an admin) makes one in the view, told of each problem under its field (the
 * view's own checks, and the proxy's refusal under the field it names), sees it listed, opens it (its
 * address copied, its QR code drawn), pauses and resumes it from the keyboard (the list filtered by
 * status), sees its payment counted with the CSV of its payments, and ends it after a confirmation; a
 * viewer reads links and their payments but is offered no control; axe finds nothing in the view, its
 * form and a link's pane, in the five languages, light and dark, at 360 px without sideways scrolling.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright';
import { UI_CHANNEL, UI_LANGUAGES, type LanguageChoice } from '../../extension/channels.ts';
import { axeViolations } from '../support/axe.ts';
import { launchExtension, overflowing, signIn, type LoadedExtension } from '../support/extension.ts';
import type { Json } from '../support/http.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

/** What a person reads (a line break is a space), on one line. */
const text = async (locator: Locator) => (await locator.innerText()).replace(/\s+/g, ' ').trim();

describe('extension: the Links view', () => {
  let stack: Stack;
  let extension: LoadedExtension;
  let page: Page;
  let code: string;
  const row = (title: string) => page.locator('tr[data-link]', { hasText: title });
  const pane = (title: string) => page.getByRole('region', { name: `Link ${title}` });
  const linkNow = async (linkCode: string) => (await stack.operator(`/api/operator/links/${linkCode}`)).body;

  before(async () => {
    stack = await startStack();
    extension = await launchExtension();
    await signIn(extension, stack.proxy.origin, stack.admin);
    page = await extension.openPage('ui/popup.html?tab=links');
  });
  after(async () => {
    await page?.close();
    await extension?.dispose();
    await stack?.stop();
  });

  it('makes a link in the view: each problem under its field (its own, then the proxy’s), then listed and open', async () => {
    await page.getByText('No payment links yet.').waitFor();
    await page.getByText('Make a link').click();
    const form = page.getByRole('form', { name: 'Make a link' });
    await form.getByRole('button', { name: 'Make link' }).click();
    await page.locator('#title-problem').filter({ hasText: 'Enter a title.' }).waitFor();
    await page.locator('#amount-problem').filter({ hasText: 'Enter an amount such as 45.00.' }).waitFor();
    assert.equal(await form.getByLabel('Title (the customer sees it)').getAttribute('aria-invalid'), 'true');
    assert.ok(
      await form.getByLabel('Title (the customer sees it)').evaluate((input) => input.matches(':focus')),
      'the first field with a problem has the focus',
    );

    await form.getByLabel('Title (the customer sees it)').fill('Piano lesson');
    await form.getByLabel('Description (optional)').fill('One hour, Thursdays at 17:00');
    await form.locator('input[name=amount]').fill('45,00');
    await form.getByLabel('Reference').fill('LESSON-{n}');
    await form.getByLabel('At most this many payments (optional)').fill('10');
    // The proxy refuses a total cap below the link's amount: its words, under that field.
    await form.getByLabel('At most this total (optional)').fill('10');
    await form.getByRole('button', { name: 'Make link' }).click();
    await page
      .locator('#maxTotal-problem')
      .filter({ hasText: 'maxTotal must be at least 45.00, the smallest payment the link takes' })
      .waitFor();
    assert.equal(await page.locator('#title-problem').count(), 0, 'the earlier problems are gone');
    assert.deepEqual((await stack.operator('/api/operator/links')).body.links, [], 'nothing made');

    // Sent from the keyboard, as any form: Enter in a field.
    await form.getByLabel('At most this total (optional)').fill('');
    await form.getByLabel('At most this total (optional)').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Link made: Piano lesson.' }).waitFor();
    const listed = row('Piano lesson');
    await listed.waitFor();
    assert.equal(
      await text(listed),
      'Piano lesson €45.00 Active: takes payments 0 of 10 payments €0.00 no payment yet',
    );
    code = (await listed.getAttribute('data-link'))!;
    const made = await linkNow(code);
    assert.deepEqual(
      [made.title, made.description, made.amount, made.currencyCode, made.reference, made.maxUses, made.createdBy.kind],
      ['Piano lesson', 'One hour, Thursdays at 17:00', '45.00', 'EUR', 'LESSON-{n}', 10, 'operator'],
    );

    // The new link is open: its address (copied), its QR code drawn.
    const open = pane('Piano lesson');
    assert.equal(await open.locator('#link-url').inputValue(), made.url);
    await open.getByRole('button', { name: 'Copy' }).click();
    await open.getByRole('status').filter({ hasText: 'Address copied.' }).waitFor();
    const qr = open.getByRole('img', { name: 'QR code of Piano lesson' });
    await qr.waitFor();
    assert.ok(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0), 'drawn');
    assert.match(await text(open.locator('dl')), /Caps at most 10 payments .*After paying the link’s receipt/);
    await open.getByText('No payments yet.').waitFor();
  });

  it('pauses and resumes the link, the list filtered by status', async () => {
    const open = pane('Piano lesson');
    await open.getByRole('button', { name: 'Pause' }).press('Enter');
    await open.getByRole('status').filter({ hasText: 'Piano lesson is paused.' }).waitFor();
    await open.locator('#link-status').filter({ hasText: 'Paused' }).waitFor();
    await row('Piano lesson').filter({ hasText: 'Paused' }).waitFor();
    assert.equal((await linkNow(code)).state, 'paused');

    const filter = page.getByRole('combobox', { name: 'Show links' });
    await filter.selectOption({ label: 'Ended' });
    await page.getByText('No links are “Ended”.').waitFor();
    await filter.selectOption({ label: 'Paused' });
    await row('Piano lesson').waitFor();
    await filter.selectOption({ label: 'All' });

    await pane('Piano lesson').getByRole('button', { name: 'Resume' }).press(' ');
    await pane('Piano lesson').getByRole('status').filter({ hasText: 'Piano lesson takes payments again.' }).waitFor();
    await row('Piano lesson').filter({ hasText: 'Active: takes payments' }).waitFor();
    assert.equal((await linkNow(code)).state, 'active');
    const trail = (await stack.operator(`/api/audit?targetId=${code}&limit=50`)).body.records as Json[];
    assert.deepEqual(trail.map((record) => [record.action, record.actor.name]).reverse(), [
      ['link.created', stack.admin.name],
      ['link.paused', stack.admin.name],
      ['link.resumed', stack.admin.name],
    ]);
  });

  it('a payment of the link: counted, listed and in the CSV; then the link ended after a confirmation', async () => {
    const started = await stack.browser(`/api/links/${code}/checkout`, { body: {} });
    assert.equal(started.status, 201, started.text);
    const payment = await stack.pay(started.body.checkoutId as string);
    await stack.control(`/payments/${payment.body.transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(async () => (await linkNow(code)).payments.count === 1 || undefined, 'the payment counted');

    await page.getByRole('button', { name: 'Refresh' }).click();
    await row('Piano lesson')
      .filter({ hasText: '1 of 10 payments' })
      .filter({ hasText: /€45\.00\s*last / })
      .waitFor();
    // The pane is read again when opened again.
    await pane('Piano lesson').getByRole('button', { name: 'Close' }).click();
    await row('Piano lesson')
      .getByRole('button', { name: /Details of Piano lesson/ })
      .click();
    const open = pane('Piano lesson');
    const paid = open.locator(`tr[data-payment="${started.body.checkoutId as string}"]`);
    await paid.waitFor();
    assert.match(await text(paid), /^LESSON-1 €45\.00 Paid /);
    assert.equal(await text(open.locator('#link-total')), '€45.00');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      open.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `kassa-link-${code}.csv`);
    const csv = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/);
    assert.equal(csv.length, 2);
    assert.match(csv[1]!, new RegExp(`^1,LESSON-1,45\\.00,EUR,paid,.*,${payment.body.transactionId as string}$`));

    await open.getByRole('button', { name: 'End' }).click();
    await open.getByText('End Piano lesson? It takes no payment any more, for good').waitFor();
    await open.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await linkNow(code)).state, 'active', 'nothing ended without the confirmation');
    await open.getByRole('button', { name: 'End' }).click();
    await open.getByRole('button', { name: 'End the link' }).click();
    await open.getByRole('status').filter({ hasText: 'Piano lesson has ended.' }).waitFor();
    await row('Piano lesson').filter({ hasText: 'Ended' }).waitFor();
    assert.equal((await linkNow(code)).state, 'ended');
    for (const name of ['Pause', 'Resume', 'End'])
      assert.equal(await open.getByRole('button', { name, exact: true }).count(), 0, `${name} is not offered`);
  });

  it('a viewer reads links and their payments but is offered no control', async () => {
    const club = await stack.operator('/api/operator/links', {
      body: { title: 'Club fee', amount: '20', currencyCode: 'EUR', reference: 'CLUB-{n}', maxUses: 1 },
    });
    assert.equal(club.status, 201, club.text);
    const viewer = await stack.addOperator('viewer', 'Vera Viewer');
    await signIn(extension, stack.proxy.origin, viewer);
    const links = await extension.openPage('ui/popup.html?tab=links');
    await links
      .locator('#read-only')
      .filter({ hasText: 'making and changing them needs the permission “manage payment links (links:manage)”' })
      .waitFor();
    const listed = links.locator('tr[data-link]', { hasText: 'Club fee' });
    await listed.filter({ hasText: 'Active: takes payments' }).filter({ hasText: '0 of 1 payments' }).waitFor();
    await listed.getByRole('button', { name: /Details of Club fee/ }).click();
    const open = links.getByRole('region', { name: 'Link Club fee' });
    await open.getByText('No payments yet.').waitFor();
    await open.getByRole('button', { name: 'Download CSV' }).waitFor();
    for (const name of ['Pause', 'Resume', 'End'])
      assert.equal(await open.getByRole('button', { name, exact: true }).count(), 0, `${name} is not offered`);
    assert.equal(await links.getByText('Make a link').count(), 0, 'no form');
    await links.close();
    await signIn(extension, stack.proxy.origin, stack.admin);
  });

  it('axe: the list, a link’s pane and the form with a problem, in every language, light and dark, at 360 px', async () => {
    const setLanguage = async (language: LanguageChoice) =>
      page.evaluate(
        ([channel, choice]) =>
          chrome.runtime.sendMessage({ channel, request: { kind: 'language.set', language: choice } }),
        [UI_CHANNEL, language] as const,
      );
    const problems: string[] = [];
    for (const language of UI_LANGUAGES) {
      await setLanguage(language);
      for (const theme of ['light', 'dark'] as const) {
        const what = `links ${language} ${theme}`;
        const view = await extension.context.newPage();
        await view.setViewportSize({ width: 360, height: 800 });
        await view.emulateMedia({ colorScheme: theme });
        await view.goto(`chrome-extension://${extension.id}/ui/sidepanel.html?tab=links`);
        await view.locator(`html[lang=${language}]`).waitFor();
        await view.locator(`tr[data-link="${code}"] button`).click();
        await view.locator('kassa-link-detail img.qr').waitFor();
        await view.locator('kassa-link-detail tr[data-payment]').waitFor();
        await view.locator('kassa-link-form details summary').click();
        await view.locator('kassa-link-form button[type=submit]').click();
        await view.locator('kassa-link-form #title-problem').waitFor();
        problems.push(...(await axeViolations(view, what)));
        problems.push(...(await overflowing(view)).map((line) => `${what}: wider than the panel: ${line}`));
        await view.close();
      }
    }
    await setLanguage('en');
    assert.deepEqual(problems, []);
  });
});

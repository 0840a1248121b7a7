/**
 * The extension for the merchant's operators, in real Chromium against a real proxy and emulator:
 * settings (kept from every page; the operator signed in by device), recent payments with live status and a filter, and stablecoin
 * orders: create (validated before sending), list, filter, update, delete, and the service's own
 * refusals shown word for word.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import { EXTENSION_ID } from '../../extension/extension-id.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { deviceTokenOf, launchExtension, leaks, signIn, type LoadedExtension } from '../support/extension.ts';

const MINT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const text = (value: string | null) => (value ?? '').replace(/\s+/g, ' ').trim();

describe('extension: operator views', () => {
  let stack: Stack;
  let extension: LoadedExtension;

  before(async () => {
    // The order forms act at once below KASSA_APPROVAL_THRESHOLD: this suite is about the operator views.
    // Dual control itself is test/proxy/dual-control.test.ts; the extension's Approvals view is issue 37's extension part.
    stack = await startStack({ env: { KASSA_APPROVAL_THRESHOLD: '1000000' } });
    extension = await launchExtension();
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
  });

  it('is loaded unpacked under the ID its manifest key fixes', () => {
    assert.equal(extension.id, EXTENSION_ID);
  });

  it('settings: refuses an insecure proxy URL, saves, tests the connection before and after signing in', async () => {
    const page = await extension.openPage('ui/popup.html');
    // Not signed in yet: the popup opens on Settings.
    await page.getByRole('tab', { name: 'Settings', selected: true }).waitFor();
    assert.equal(await page.getByLabel('Operator token').count(), 0, 'no shared secret to enter');
    await page.getByLabel('Proxy URL').fill('http://kassa.example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'The proxy URL must be https://' }).waitFor();

    await page.getByLabel('Proxy URL').fill(`${stack.proxy.origin}/some/path`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await page.getByLabel('Proxy URL').inputValue(), stack.proxy.origin, 'kept as an origin');
    // Signed out, the connection test reads the public chain listing, with no credential.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Connected: the proxy lists 2 chains. The operator views need you to sign in.' })
      .waitFor();
    await page.close();

    await signIn(extension, stack.proxy.origin, stack.admin);
    const again = await extension.openPage('ui/popup.html');
    // Signed in: the popup opens on Payments; the connection test asks the proxy's health as this device.
    await again.getByRole('tab', { name: 'Payments', selected: true }).waitFor();
    await again.getByRole('tab', { name: 'Settings' }).click();
    await again.getByRole('button', { name: 'Test connection' }).click();
    await again
      .getByRole('status')
      .filter({ hasText: /^Connected: proxy 0\.1\.0, ok/ })
      .waitFor();
    const health = extension.requests.find((request) => request.url === `${stack.proxy.origin}/api/health`);
    assert.ok(health, 'the service worker’s request to the proxy is recorded');
    assert.equal(health.headers.authorization, `Bearer ${await deviceTokenOf(extension)}`);
    // Settings hold no credential; the device's session is kept apart, with the proxy that issued it.
    const stored = await extension.storage();
    assert.deepEqual(stored['kassa.settings'], { proxyUrl: stack.proxy.origin, network: 'test' });
    await again.close();
  });

  it('payments: newest first, filtered by status, with live status changes', async () => {
    const first = (await stack.pay(await stack.checkout({ reference: 'EXT-FIRST' }))).body.transactionId as string;
    const second = (await stack.pay(await stack.checkout({ reference: 'EXT-SECOND', amount: '7.00' }))).body
      .transactionId as string;
    const page = await extension.openPage('ui/popup.html?tab=payments');
    await page.getByText('Live', { exact: true }).waitFor();
    const rows = page.getByRole('table', { name: 'Payments' }).locator('tbody tr');
    await rows.nth(1).waitFor();
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-transaction'))), [
      second,
      first,
    ]);
    assert.match(text(await rows.first().textContent()), /EXT-SECOND €7\.00 PENDING/);

    // The payment settles at the bank: its row changes without a reload.
    assert.equal(
      (
        await stack.control(`/payments/${second}/outcome`, {
          status: 'COMPLETED',
          networkStatus: 'PAYMENT_EXECUTED_CREDITED',
        })
      ).status,
      200,
    );
    await page.locator(`tr[data-transaction="${second}"] .status`).filter({ hasText: 'COMPLETED' }).waitFor();

    await page.getByLabel('Filter by status').selectOption('COMPLETED');
    await page.locator(`tr[data-transaction="${first}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-transaction'))), [second]);
    const filtered = extension.requests.find((request) =>
      request.url.startsWith(`${stack.proxy.origin}/api/payments?status=COMPLETED`),
    );
    assert.ok(filtered, 'the filter is the proxy’s');
    await page.close();
  });

  describe('orders', () => {
    let page: Page;
    const row = (customerOrder: string) =>
      page.getByRole('table', { name: 'Orders' }).locator('tbody tr', { hasText: customerOrder }).first();
    const fillOrder = async (
      values: Partial<Record<'amount' | 'mintWallet' | 'customerName' | 'customerOrder', string>> & {
        stableCoin?: string;
        chain?: string;
      },
    ) => {
      const form = page.getByRole('form', { name: 'New order' });
      if (values.stableCoin) await form.getByLabel('Stablecoin').selectOption(values.stableCoin);
      if (values.chain) await form.getByLabel('Chain').selectOption({ label: values.chain });
      await form.getByLabel('Amount').fill(values.amount ?? '');
      await form.getByLabel('Wallet to mint to').fill(values.mintWallet ?? '');
      await form.getByLabel('Customer’s name').fill(values.customerName ?? '');
      await form.getByLabel('Customer’s order number').fill(values.customerOrder ?? '');
      await form.getByRole('button', { name: 'Create order' }).click();
    };

    before(async () => {
      page = await extension.openPage('ui/popup.html?tab=orders');
      await page.getByText('No orders.').waitFor();
      await page.getByText('New order').click();
      await page
        .getByRole('form', { name: 'New order' })
        .getByLabel('Chain')
        .locator('option')
        .nth(1)
        .waitFor({ state: 'attached' });
    });
    after(() => page?.close());

    it('validates before sending: nothing reaches the proxy for a bad order', async () => {
      const before = extension.requests.filter(
        (request) => request.method === 'POST' && request.url.endsWith('/api/orders'),
      ).length;
      await fillOrder({ amount: '-5', mintWallet: MINT_WALLET, customerName: 'Ada', customerOrder: 'EXT-1' });
      // Each field's problem in words, under the field, and the field marked invalid.
      const problem = (field: string) => page.locator(`#${field}-problem`);
      await problem('amount').filter({ hasText: 'Enter an amount greater than zero, such as 100.00.' }).waitFor();
      assert.equal(await page.locator('[name=amount]').first().getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('[name=amount]').first().getAttribute('aria-describedby'), 'amount-problem');
      assert.equal(await page.locator('form[aria-label="New order"] .error').count(), 1, 'one message');
      // One letter's case changed: the EIP-55 checksum no longer holds.
      await fillOrder({
        amount: '10',
        mintWallet: MINT_WALLET.replace('C51812dc', 'c51812dc'),
        customerName: 'Ada',
        customerOrder: 'EXT-1',
      });
      await problem('mintWallet')
        .filter({ hasText: /^This is not a wallet address: check it character by character/ })
        .waitFor();
      assert.equal(await problem('amount').count(), 0, 'the amount’s problem is gone once it is right');
      await fillOrder({ amount: '10', mintWallet: MINT_WALLET, customerName: '   ', customerOrder: 'EXT-1' });
      await problem('customerName').filter({ hasText: 'Enter the customer’s name.' }).waitFor();
      assert.ok(
        (await page.evaluate(() => {
          const root = document
            .querySelector('kassa-extension-app')!
            .shadowRoot!.querySelector('kassa-orders-view')!.shadowRoot!;
          return root.activeElement?.getAttribute('name');
        })) === 'customerName',
        'the first field with a problem has the focus',
      );
      const after = extension.requests.filter(
        (request) => request.method === 'POST' && request.url.endsWith('/api/orders'),
      ).length;
      assert.equal(after, before);
    });

    it('creates orders on a chain from the listing, lists and filters them', async () => {
      await fillOrder({
        stableCoin: 'eEUR',
        chain: 'Kassa Local Two (31338)',
        amount: '250.5',
        mintWallet: MINT_WALLET,
        customerName: 'Ada Lovelace',
        customerOrder: 'EXT-1',
      });
      await page
        .getByRole('status')
        .filter({ hasText: /Order created|created/i })
        .waitFor();
      await row('EXT-1').waitFor();
      assert.match(text(await row('EXT-1').textContent()), /EXT-1 ?Ada Lovelace 250\.5 eEUR Kassa Local Two New/);
      await fillOrder({
        stableCoin: 'eUSD',
        amount: '10',
        mintWallet: MINT_WALLET,
        customerName: 'Grace Hopper',
        customerOrder: 'EXT-2',
      });
      await row('EXT-2').waitFor();
      const created = (await stack.operator('/api/orders')).body as Array<{
        customerOrder: string;
        chainId: number;
        stableCoin: string;
        amount: string;
      }>;
      assert.deepEqual(
        created.map(({ customerOrder, chainId, stableCoin, amount }) => ({
          customerOrder,
          chainId,
          stableCoin,
          amount,
        })),
        [
          { customerOrder: 'EXT-1', chainId: 31338, stableCoin: 'eEUR', amount: '250.5' },
          { customerOrder: 'EXT-2', chainId: 31337, stableCoin: 'eUSD', amount: '10' },
        ],
      );
      // The same customer order twice is refused before sending.
      await fillOrder({ amount: '1', mintWallet: MINT_WALLET, customerName: 'Ada', customerOrder: 'EXT-1' });
      await page.locator('#customerOrder-problem').filter({ hasText: 'Order number EXT-1 is already used.' }).waitFor();

      // Move EXT-2 along so the filter has something to tell apart.
      await row('EXT-2').getByRole('button', { name: 'Edit EXT-2' }).click();
      await page.getByRole('form', { name: 'Edit EXT-2' }).getByLabel('Status').selectOption('Processing');
      await page.getByRole('form', { name: 'Edit EXT-2' }).getByRole('button', { name: 'Save changes' }).click();
      await row('EXT-2').locator('.status').filter({ hasText: 'Processing' }).waitFor();

      await page.getByLabel('Filter by status').selectOption('Processing');
      await row('EXT-1').waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('table', { name: 'Orders' }).locator('tbody tr').count(), 1);
      assert.ok(extension.requests.some((request) => request.url.endsWith('/api/orders?filterStatus=Processing')));
      await page.getByLabel('Filter by status').selectOption('');
      await row('EXT-1').waitFor();
    });

    it('updates amount and status; shows the service’s refusals word for word', async () => {
      await row('EXT-1').getByRole('button', { name: 'Edit EXT-1' }).click();
      const edit = page.getByRole('form', { name: 'Edit EXT-1' });
      await edit.getByLabel('Amount').fill('300');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await row('EXT-1').filter({ hasText: '300 eEUR' }).waitFor();
      assert.equal(
        ((await stack.operator('/api/orders')).body as Array<{ customerOrder: string; amount: string }>).find(
          (order) => order.customerOrder === 'EXT-1',
        )?.amount,
        '300',
      );

      // EXT-2 is Processing: its amount can no longer change, and the service says so.
      await row('EXT-2').getByRole('button', { name: 'Edit EXT-2' }).click();
      await page.getByRole('form', { name: 'Edit EXT-2' }).getByLabel('Amount').fill('11');
      await page.getByRole('form', { name: 'Edit EXT-2' }).getByRole('button', { name: 'Save changes' }).click();
      await page
        .locator('#list-error')
        .filter({ hasText: 'amount can change only while the order is New; it is Processing' })
        .waitFor();
      assert.equal(
        await page.locator('#list-error').textContent(),
        'amount can change only while the order is New; it is Processing',
      );
    });

    it('deletes after a confirmation; a Processing order’s refusal is shown as the service gave it', async () => {
      await row('EXT-2').getByRole('button', { name: 'Delete EXT-2' }).click();
      await row('EXT-2').getByRole('button', { name: 'Confirm delete EXT-2' }).click();
      await page.locator('#list-error').filter({ hasText: 'Order is Processing and cannot be deleted' }).waitFor();
      assert.equal(await page.locator('p.ok[role=status]').count(), 0, 'no success stays beside the refusal');
      assert.equal(await page.locator('#list-error').textContent(), 'Order is Processing and cannot be deleted');

      await row('EXT-1').getByRole('button', { name: 'Delete EXT-1' }).click();
      assert.equal(
        ((await stack.operator('/api/orders')).body as unknown[]).length,
        2,
        'nothing is deleted before the confirmation',
      );
      await row('EXT-1').getByRole('button', { name: 'Confirm delete EXT-1' }).click();
      await row('EXT-1').waitFor({ state: 'detached' });
      assert.deepEqual(
        ((await stack.operator('/api/orders')).body as Array<{ customerOrder: string }>).map(
          (order) => order.customerOrder,
        ),
        ['EXT-2'],
      );
    });
  });

  it('speaks the language chosen in Settings, in every view and after reopening; “As the browser” goes back', async () => {
    const page = await extension.openPage('ui/popup.html?tab=settings');
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('tab', { name: 'Zahlungen' }).waitFor();
    await page.getByRole('heading', { name: 'Einstellungen' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    const again = await extension.openPage('ui/popup.html?tab=orders');
    await again.getByRole('tab', { name: 'Bestellungen', selected: true }).waitFor();
    await again.getByText('Neue Bestellung').waitFor();
    await again.getByRole('tab', { name: 'Wallet' }).click();
    await again.getByRole('heading', { name: /^Wallet/ }).waitFor();
    await again
      .getByText(/^(Kassa bewahrt einen Schlüssel|Gesperrt|Entsperrt)/)
      .first()
      .waitFor();
    await again.close();
    await page.getByLabel('Sprache').selectOption('auto');
    await page.getByRole('tab', { name: 'Payments' }).waitFor();
    await page.close();
  });

  it('the side panel shows the same views, without the “open in side panel” button', async () => {
    const panel = await extension.openPage('ui/sidepanel.html');
    await panel.getByRole('tab', { name: 'Payments', selected: true }).waitFor();
    await panel.getByRole('table', { name: 'Payments' }).waitFor();
    assert.equal(await panel.getByRole('button', { name: 'Open in side panel' }).count(), 0);
    await panel.getByRole('tab', { name: 'Orders' }).click();
    await panel.getByRole('table', { name: 'Orders' }).waitFor();
    await panel.close();
  });

  it('no web page can read the settings; no request of a page carries the device token', async () => {
    const page = await extension.context.newPage();
    await page.goto(`${stack.proxy.origin}/openapi.json`);
    // A web page has no extension API at all, and Kassa's provider does not expose settings.
    assert.equal(
      await page.evaluate(() => typeof (globalThis as { chrome?: { storage?: unknown } }).chrome?.storage),
      'undefined',
    );
    const pageRequests = extension.requests.filter(
      (request) => request.from !== 'service worker' && !request.from.startsWith('chrome-extension://'),
    );
    assert.ok(pageRequests.length > 0);
    assert.deepEqual(leaks(pageRequests, [await deviceTokenOf(extension)]), []);
    await page.close();
  });
});

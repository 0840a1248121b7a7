/**
 * The extension's Purchases view for the operator (issue 28), in real Chromium against a real proxy
 * with the on-ramp on and the emulator playing the issuer (it mints at once, or fails the next order
 * when told to): the purchases newest first with their payment, order, chain transaction (its
 * explorer link), state and age; the state filter and paging; a delayed purchase's "Retry the mint"
 * (minted once: the balance read from the chain) and "Mark refunded" (its note required and audited);
 * the proxy's refusals word for word; a proxy without the on-ramp; the 360 px side panel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import type { Page } from 'playwright';
import type { PurchaseDetail } from '../../schemas/onramp.ts';
import { launchExtension, overflowing, signIn, type LoadedExtension } from '../support/extension.ts';
import { balanceOf, mintsTo, ONRAMP_ENV, onrampCustomer, ordersOf, units } from '../support/onramp.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const text = (value: string | null) => (value ?? '').replace(/\s+/g, ' ').trim();
const TWO = 31338;

describe('extension: the Purchases view', () => {
  let stack: Stack;
  let extension: LoadedExtension;
  /** Purchases made in `before`, by what happened to them. */
  const made: Record<'delivered' | 'retry' | 'refund' | 'moved' | 'waiting', { purchaseId: string; wallet: string }> =
    {} as never;

  const detailOf = async (purchaseId: string) =>
    (await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body as PurchaseDetail;
  /** A purchase of `amount` eEUR paid at the bank; with `fail`, its mint order fails (the purchase is delayed). */
  const bought = async (amount: string, fail = false) => {
    if (fail) await stack.control('/orders/faults', { kind: 'fail', times: 1 });
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseId, purchaseToken } = await customer.buyAndPay({ amount });
    await customer.until(purchaseToken, fail ? 'delayed' : 'delivered');
    return { purchaseId, wallet: wallet.address };
  };
  const openView = async (width = 360) => {
    const page = await extension.openPage('ui/sidepanel.html?tab=purchases');
    await page.setViewportSize({ width, height: 900 });
    await page.getByRole('table', { name: 'Purchases' }).waitFor();
    return page;
  };
  const rowIds = (page: Page) =>
    page
      .getByRole('table', { name: 'Purchases' })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-purchase') ?? ''));
  const openDetail = async (page: Page, purchaseId: string) => {
    await page.locator(`tr[data-purchase="${purchaseId}"] button`).click();
    const detail = page.locator('kassa-purchase-detail');
    await detail.locator('#purchase-state').waitFor();
    return detail;
  };

  before(async () => {
    stack = await startStack({
      // "Retry the mint" and "Mark refunded" act at once below KASSA_APPROVAL_THRESHOLD: this suite is about the
      // Purchases view. Dual control itself is test/proxy/dual-control.test.ts and onramp-mint.test.ts.
      env: { ...ONRAMP_ENV, KASSA_CREATE_RATE_LIMIT: '1000', KASSA_APPROVAL_THRESHOLD: '1000000' },
      sandbox: { mintDelayMs: 0 },
    });
    extension = await launchExtension();
    await signIn(extension, stack.proxy.origin, stack.admin);
    made.delivered = await bought('7');
    made.retry = await bought('8', true);
    made.refund = await bought('9', true);
    made.moved = await bought('3', true);
    const waiting = Wallet.createRandom();
    const created = await onrampCustomer(stack, waiting).purchase({ amount: '2' });
    assert.equal(created.status, 201, created.text);
    made.waiting = { purchaseId: created.body.purchase.purchaseId as string, wallet: waiting.address };
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
  });

  it('lists purchases newest first: payment, order, chain transaction with its explorer link, state, age', async () => {
    const page = await openView();
    const ids = await rowIds(page);
    assert.deepEqual(
      ids.slice(0, 5),
      [made.waiting, made.moved, made.refund, made.retry, made.delivered].map((entry) => entry.purchaseId),
    );
    const delivered = page.locator(`tr[data-purchase="${made.delivered.purchaseId}"]`);
    const view = await detailOf(made.delivered.purchaseId);
    assert.match(
      text(await delivered.innerText()),
      new RegExp(
        // The order's status as the proxy last read it (it delivers on the mint it sees on the chain).
        `^7 eEUR Kassa Local Two €7\\.00 COMPLETED (New|Processing|Completed) ${view.txHash!.slice(0, 6)}…${view.txHash!.slice(-4)} delivered (now|\\d+ sec\\. ago|\\d+ min\\. ago)$`,
      ),
    );
    const link = delivered.getByRole('link', { name: `Open ${view.txHash} on the explorer` });
    assert.equal(await link.getAttribute('href'), view.explorerUrl);
    assert.match(view.explorerUrl!, new RegExp(`/explorer/${TWO}/tx/${view.txHash}$`));
    const waiting = text(await page.locator(`tr[data-purchase="${made.waiting.purchaseId}"]`).innerText());
    assert.match(waiting, /^2 eEUR Kassa Local Two €2\.00 — — awaiting_payment (now|\d+ sec\. ago)$/);
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the 360 px side panel');

    // The state filter.
    await page.getByLabel('Filter by state').selectOption('delayed');
    await page.locator(`tr[data-purchase="${made.delivered.purchaseId}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(
      (await rowIds(page)).sort(),
      [made.moved, made.refund, made.retry].map((entry) => entry.purchaseId).sort(),
    );
    await page.getByLabel('Filter by state').selectOption('refunded');
    await page.getByText('No purchases in state refunded.').waitFor();
    await page.close();
  });

  it('a delayed purchase: its detail, and "Retry the mint" after a confirmation mints once (balance from the chain)', async () => {
    const { purchaseId, wallet } = made.retry;
    const page = await openView();
    const detail = await openDetail(page, purchaseId);
    assert.equal(text(await detail.locator('#purchase-state').textContent()), 'delayed');
    assert.match(text(await detail.locator('#delayed-reason').textContent()), /Failed/);
    assert.match(text(await detail.locator('#mint-order').textContent()), /Failed/);
    assert.equal(await detail.locator('#audit').count(), 0, 'no operator action yet');
    assert.equal(await balanceOf(stack, TWO, 'eEUR', wallet), 0n);

    await detail.getByRole('button', { name: 'Retry the mint' }).click();
    const confirmation = detail.getByRole('group', { name: 'Retry the mint' });
    assert.equal(
      text(await confirmation.locator('p').textContent()),
      `Retry the mint of 8 eEUR to ${wallet}? The proxy makes a new mint order only if the chain shows no mint for this purchase.`,
    );
    await confirmation.getByRole('button', { name: 'Confirm' }).click();
    await detail
      .getByRole('status')
      .filter({ hasText: /^Done: the purchase is now (paid|minting|delivered)\.$/ })
      .waitFor();
    await eventually(async () => (await detailOf(purchaseId)).state === 'delivered' || undefined, 'delivered');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await detail.locator('#purchase-state').filter({ hasText: 'delivered' }).waitFor();
    assert.equal(await balanceOf(stack, TWO, 'eEUR', wallet), units('8'), 'the balance read from the chain');
    assert.equal((await mintsTo(stack, TWO, 'eEUR', wallet)).length, 1, 'minted once');
    assert.equal((await ordersOf(stack, purchaseId)).length, 2, 'the failed order and the new one');
    const audit = detail.locator('#audit li[data-action="retry-mint"]');
    assert.match(text(await audit.textContent()), /^Retry the mint · .+ · delayed → paid Request \S+$/);
    assert.equal(
      await detail.getByRole('button', { name: 'Retry the mint' }).count(),
      0,
      'no action on a delivered purchase',
    );
    await detail.locator('#chain-transaction a').waitFor();
    assert.deepEqual(await overflowing(page), [], 'the detail fits the 360 px side panel');
    await page.close();
  });

  it('"Mark refunded" requires a note, is recorded, and its audit shows it', async () => {
    const { purchaseId, wallet } = made.refund;
    const page = await openView(400);
    const detail = await openDetail(page, purchaseId);
    await detail.getByRole('button', { name: 'Mark refunded' }).click();
    const form = detail.getByRole('form', { name: 'Mark refunded' });
    await form.getByRole('button', { name: 'Mark refunded' }).click();
    await detail
      .locator('#note-problem')
      .filter({ hasText: 'Write a note of at least 3 characters: how and when the money went back.' })
      .waitFor();
    assert.equal(await form.getByLabel('Note: how and when the money went back').getAttribute('aria-invalid'), 'true');
    assert.equal((await detailOf(purchaseId)).state, 'delayed', 'nothing was sent');
    const note = 'Returned 9.00 EUR by SEPA, ref R-991';
    await form.getByLabel('Note: how and when the money went back').fill(note);
    await form.getByRole('button', { name: 'Mark refunded' }).click();
    await detail.getByRole('status').filter({ hasText: 'Recorded: the purchase is now refunded.' }).waitFor();
    await detail.locator('#purchase-state').filter({ hasText: 'refunded' }).waitFor();
    const entry = detail.locator('#audit li[data-action="refund"]');
    await entry.waitFor();
    assert.match(
      text(await entry.textContent()),
      new RegExp(`^Mark refunded · .+ · delayed → refunded ${note} Request \\S+$`),
    );
    const recorded = await detailOf(purchaseId);
    assert.equal(recorded.audit[0]!.note, note);
    assert.equal(await balanceOf(stack, TWO, 'eEUR', wallet), 0n, 'nothing minted');
    // The list follows.
    await page.locator(`tr[data-purchase="${purchaseId}"]`).filter({ hasText: 'refunded' }).waitFor();
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the 400 px popup');
    await page.close();
  });

  it('the proxy’s refusal is shown word for word', async () => {
    const { purchaseId } = made.moved;
    const page = await openView();
    const detail = await openDetail(page, purchaseId);
    // Another operator marks it refunded while this one looks at it.
    const other = await stack.operator(`/api/onramp/purchases/${purchaseId}/refund`, {
      body: { note: 'Done at the bank' },
    });
    assert.equal(other.status, 200, other.text);
    await detail.getByRole('button', { name: 'Retry the mint' }).click();
    await detail.getByRole('group', { name: 'Retry the mint' }).getByRole('button', { name: 'Confirm' }).click();
    await detail
      .locator('#purchase-error')
      .filter({ hasText: /^Only a delayed purchase can be acted on; this one is refunded$/ })
      .waitFor();
    await page.close();
  });

  it('pages through more purchases than one read holds (Load more)', async () => {
    const customer = onrampCustomer(stack, Wallet.createRandom());
    for (let count = 0; count < 50; count++) {
      const created = await customer.purchase({ amount: '1' });
      assert.equal(created.status, 201, created.text);
    }
    const page = await openView();
    assert.equal((await rowIds(page)).length, 50, 'one page');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    const ids = await rowIds(page);
    assert.equal(ids.length, 55);
    assert.equal(new Set(ids).size, 55, 'no purchase twice');
    assert.equal(ids.at(-1), made.delivered.purchaseId, 'the oldest last');
    await page.close();
  });

  it('a proxy without the on-ramp says so', async () => {
    const plain = await startStack({ reuseSandbox: stack.sandbox });
    try {
      await signIn(extension, plain.proxy.origin, plain.admin);
      const page = await extension.openPage('ui/popup.html?tab=purchases');
      await page
        .locator('#onramp-off')
        .filter({
          hasText: 'The on-ramp is not enabled on this proxy: set KASSA_ONRAMP_COINS for customers to buy stablecoins.',
        })
        .waitFor();
      assert.equal(await page.getByRole('table', { name: 'Purchases' }).count(), 0);
      await page.close();
    } finally {
      await signIn(extension, stack.proxy.origin, stack.admin);
      await plain.stop();
    }
  });
});

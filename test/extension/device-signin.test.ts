/**
 * The extension signs in per person by device (RFC 8628) and follows that person's permissions, in
 * real Chromium against a real proxy and emulator: the code shown and approved with the person's own
 * credential; the operator views working with the device token alone; a mint order sent for
 * approval, approved by a second person in a second profile (the badge counting it), and only then
 * made at the order service; rejection with a reason and cancellation; what a viewer is not offered,
 * and a 403 named in words; the admins' Team and Audit views; sign-out; a revocation stopping the
 * views at once; a denied code; the shared token of earlier versions dropped with a note.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import { as, type TestOperator } from '../support/operators.ts';
import {
  configure,
  deviceTokenOf,
  launchExtension,
  leaks,
  signIn,
  startSignIn,
  type LoadedExtension,
} from '../support/extension.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const MINT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

const ordersMade = async (stack: Stack) =>
  ((await stack.control('/metrics')).body['orders.create'] as number | undefined) ?? 0;

const badge = (extension: LoadedExtension) => extension.worker.evaluate(() => chrome.action.getBadgeText({}));

const deviceCredentialOf = async (stack: Stack, person: TestOperator) => {
  const sessions = await stack.operator(`/api/operators/${person.operatorId}/sessions`);
  return (sessions.body.credentials as Array<{ credentialId: string; kind: string; live: boolean }>).find(
    (credential) => credential.kind === 'device' && credential.live,
  );
};

describe('extension: device sign-in, permissions, dual control, the team and the audit', () => {
  let stack: Stack;
  let ada: TestOperator;
  let grace: TestOperator;
  let viewer: TestOperator;
  /** Ada's browser (finance), and a second person's in a second profile. */
  let first: LoadedExtension;
  let second: LoadedExtension;

  before(async () => {
    stack = await startStack();
    ada = await stack.addOperator('finance', 'Ada Finance');
    grace = await stack.addOperator('finance', 'Grace Finance');
    viewer = await stack.addOperator('viewer', 'Vic Viewer');
    first = await launchExtension();
    second = await launchExtension();
  });
  after(async () => {
    await first?.dispose();
    await second?.dispose();
    await stack?.stop();
  });

  it('signs in by device: the code shown, approved with the person’s own credential; Settings shows who, their role and until when', async () => {
    await configure(first, stack.proxy.origin);
    const { page, userCode } = await startSignIn(first);
    assert.match(userCode, USER_CODE, 'the user code, as the proxy gave it');
    await page.getByRole('img', { name: `Code: ${[...userCode].join(' ')}` }).waitFor();
    const asked = first.requests.find((request) => request.url === `${stack.proxy.origin}/operator/device/code`);
    assert.equal(asked?.from, 'service worker', 'the worker asks for the code');
    // The approval page opens in a tab at the proxy's address for this code; a proxy on 127.0.0.1
    // moves its pages to localhost, where browsers allow passkeys.
    const opening = first.context.waitForEvent('page');
    await page.getByRole('button', { name: 'Open the approval page' }).click();
    const approvalPage = await opening;
    const onLocalhost = new URL(`/operator/device?user_code=${userCode}`, stack.proxy.origin);
    onLocalhost.hostname = 'localhost';
    await approvalPage.waitForURL(onLocalhost.href);
    await approvalPage.close();

    const approved = await as(stack.proxy.origin, ada)('/operator/device/approve', {
      body: { user_code: userCode, approve: true },
    });
    assert.equal(approved.status, 200, approved.text);
    await page.locator('#operator-name').filter({ hasText: 'Ada Finance' }).waitFor();
    assert.equal(await page.locator('#operator-role').textContent(), 'Finance');
    assert.ok(await page.locator('#expires-at').textContent(), 'the token’s expiry');

    // The worker polled the token endpoint as the RFC says (form-encoded), no faster than the interval.
    const polls = first.requests.filter((request) => request.url === `${stack.proxy.origin}/operator/device/token`);
    assert.ok(polls.length >= 1);
    for (const poll of polls) {
      assert.equal(poll.from, 'service worker');
      assert.match(poll.headers['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
      assert.match(poll.postData, /grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code/);
    }
    // Only the device's token is kept, with the proxy that issued it; no shared secret, nothing in the settings.
    const stored = (await first.storage()) as Record<string, Record<string, unknown>>;
    const session = stored['kassa.operatorSession']!;
    assert.match(String(session.token), /^kassa_dev_/);
    assert.equal(session.proxyUrl, stack.proxy.origin);
    assert.deepEqual(stored['kassa.settings'], { proxyUrl: stack.proxy.origin, network: 'test' });
    assert.equal(await deviceCredentialOf(stack, ada).then((credential) => credential?.kind), 'device');
    await page.close();
  });

  it('the operator views work with the device token alone; no page’s request carries it', async () => {
    const transactionId = (await stack.pay(await stack.checkout({ reference: 'DEVICE-1' }))).body
      .transactionId as string;
    const page = await first.openPage('ui/popup.html?tab=payments');
    await page.locator(`tr[data-transaction="${transactionId}"]`).waitFor();
    const token = await deviceTokenOf(first);
    const listed = first.requests.find((request) => request.url.startsWith(`${stack.proxy.origin}/api/payments?`));
    assert.equal(listed?.headers.authorization, `Bearer ${token}`);
    assert.deepEqual(
      leaks(
        first.requests.filter((request) => request.from !== 'service worker'),
        [token],
      ),
      [],
    );
    // A finance role may export: the button is offered.
    await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    await page.close();
  });

  describe('dual control', () => {
    let orders: Page;

    const newOrder = async (page: Page, customerOrder: string, amount = '250.5') => {
      const details = page.locator('kassa-orders-view details');
      if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open)))
        await details.locator('summary').click();
      const form = page.getByRole('form', { name: 'New order' });
      await form.getByLabel('Chain').locator('option').nth(1).waitFor({ state: 'attached' });
      await form.getByLabel('Stablecoin').selectOption('eEUR');
      await form.getByLabel('Chain').selectOption({ label: 'Kassa Local Two (31338)' });
      await form.getByLabel('Amount').fill(amount);
      await form.getByLabel('Wallet to mint to').fill(MINT_WALLET);
      await form.getByLabel('Customer’s name').fill('Ada Lovelace');
      await form.getByLabel('Customer’s order number').fill(customerOrder);
      await form.getByRole('button', { name: 'Create order' }).click();
    };

    before(async () => {
      orders = await first.openPage('ui/popup.html?tab=orders');
      await orders.getByText('No orders.').waitFor();
    });
    after(() => orders?.close());

    it('an order is sent for approval, approved by a second person in a second profile (the badge counts it), then made', async () => {
      const before = await ordersMade(stack);
      await newOrder(orders, 'DUAL-1');
      await orders.locator('#sent-for-approval').filter({ hasText: 'Sent for approval' }).waitFor();
      const card = orders.getByRole('region', { name: 'Request: Create a mint order' });
      await card.locator('#waiting').filter({ hasText: 'Waiting for a second person to approve.' }).waitFor();
      await card.getByRole('button', { name: 'Cancel the request' }).waitFor();
      await card.locator('dd', { hasText: 'Kassa Local Two' }).waitFor();
      assert.match(
        (await card.textContent()) ?? '',
        /250\.5 eEUR.*Kassa Local Two.*0x70997970C51812dc3A010C7d01b50e0d17dc79C8/s,
      );
      assert.equal(await ordersMade(stack), before, 'nothing reached the order service');
      assert.equal(await badge(first), '', 'one’s own request is not counted: a second person decides it');

      await signIn(second, stack.proxy.origin, grace);
      await eventually(async () => ((await badge(second)) === '1' ? true : undefined), 'the badge to count 1');
      assert.match(
        await second.worker.evaluate(() => chrome.action.getTitle({})),
        /^Kassa: 1 approval requests wait for your decision$/,
      );
      const approvals = await second.openPage('ui/popup.html?tab=approvals');
      const row = approvals.locator('tr[data-approval]', { hasText: 'DUAL-1' });
      await row.getByRole('button', { name: 'Create a mint order: DUAL-1' }).click();
      const pane = approvals.getByRole('region', { name: 'Request: Create a mint order' });
      // The card names the chain once the page's chain listing has come: until then it shows the id.
      await pane.locator('dd', { hasText: 'Kassa Local Two' }).waitFor();
      assert.match(
        (await pane.textContent()) ?? '',
        /Amount\s*250\.5 eEUR.*Chain\s*Kassa Local Two.*Asked by\s*Ada Finance \(Finance\)/s,
      );
      await pane.getByRole('button', { name: 'Approve', exact: true }).click();
      await pane.getByRole('status').filter({ hasText: 'Approved: done.' }).waitFor();
      await pane.locator('#approval-state').filter({ hasText: 'Done' }).waitFor();
      assert.match((await pane.locator('#approval-result').textContent()) ?? '', /orderId: /);
      assert.equal(await ordersMade(stack), before + 1, 'one order, after the approval');
      await eventually(async () => ((await badge(second)) === '' ? true : undefined), 'the badge to clear');
      await approvals.close();

      // The requester sees it done.
      await orders.getByRole('button', { name: 'Refresh' }).click();
      await orders.locator('tr[data-order]', { hasText: 'DUAL-1' }).waitFor();
    });

    it('a change is rejected with a reason; the requester cancels another of their own', async () => {
      const row = orders.locator('tr[data-order]', { hasText: 'DUAL-1' });
      await row.getByRole('button', { name: 'Edit DUAL-1' }).click();
      await orders.getByRole('form', { name: 'Edit DUAL-1' }).getByLabel('Amount').fill('300');
      await orders.getByRole('form', { name: 'Edit DUAL-1' }).getByRole('button', { name: 'Save changes' }).click();
      await orders.getByRole('region', { name: 'Request: Change a mint order' }).locator('#waiting').waitFor();

      const approvals = await second.openPage('ui/popup.html?tab=approvals');
      await approvals.getByRole('button', { name: /^Change a mint order: / }).click();
      const pane = approvals.getByRole('region', { name: 'Request: Change a mint order' });
      assert.match((await pane.textContent()) ?? '', /250\.5 → 300 eEUR/);
      await pane.getByRole('button', { name: 'Reject', exact: true }).click();
      await pane.getByRole('button', { name: 'Reject with this reason' }).click();
      await pane.locator('#reason-problem').filter({ hasText: 'Write a reason of at least 3 characters.' }).waitFor();
      await pane.getByLabel('Reason for rejecting').fill('The customer paid for 250.5');
      await pane.getByRole('button', { name: 'Reject with this reason' }).click();
      await pane.getByRole('status').filter({ hasText: 'Rejected.' }).waitFor();
      await approvals.close();
      assert.equal((await stack.operator('/api/orders')).body[0].amount, '250.5', 'unchanged');

      // Ada's own: cancelled from where it was sent.
      await newOrder(orders, 'DUAL-2', '5');
      const card = orders.getByRole('region', { name: 'Request: Create a mint order' });
      await card.getByRole('button', { name: 'Cancel the request' }).click();
      await card.getByRole('status').filter({ hasText: 'The request was cancelled.' }).waitFor();

      const mine = await first.openPage('ui/popup.html?tab=approvals');
      await mine.getByLabel('Filter by state').selectOption('');
      await mine.locator('tr[data-approval] .status', { hasText: 'Rejected' }).waitFor();
      await mine.locator('tr[data-approval] .status', { hasText: 'Cancelled' }).waitFor();
      await mine.locator('tr[data-approval] .status', { hasText: 'Done' }).waitFor();
      await mine.close();
    });

    it('a 403 names the permission in words, and the views follow the lowered role', async () => {
      await stack.operator(`/api/operators/${ada.operatorId}`, { method: 'PATCH', body: { role: 'viewer' } });
      // The form is still on screen from before: the proxy judges, and says what is missing.
      await newOrder(orders, 'DUAL-3', '1');
      await orders
        .locator('#form-error')
        .filter({
          hasText:
            'Your role does not allow this: it needs the permission “create and change mint orders (orders:write)”.',
        })
        .waitFor();
      // The worker asked again who this is: the form and the changes are no longer offered.
      await orders.getByRole('form', { name: 'New order' }).waitFor({ state: 'detached' });
      assert.equal(await orders.getByRole('button', { name: 'Edit DUAL-1' }).count(), 0);
      await stack.operator(`/api/operators/${ada.operatorId}`, { method: 'PATCH', body: { role: 'finance' } });
    });
  });

  it('signs out: the proxy revokes the device’s credential and the extension forgets it', async () => {
    const credential = await deviceCredentialOf(stack, grace);
    assert.ok(credential);
    const page = await second.openPage('ui/popup.html?tab=settings');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'Signed out.' }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await second.storage())['kassa.operatorSession'], undefined);
    assert.equal(await deviceCredentialOf(stack, grace), undefined, 'revoked at the proxy');
    const signOut = second.requests.find(
      (request) => request.method === 'DELETE' && request.url === `${stack.proxy.origin}/api/operator/me/credential`,
    );
    assert.ok(signOut, 'DELETE /api/operator/me/credential');
    await page.close();
  });

  it('a viewer is not offered what a viewer may not do: no export, no order form, no decision, no Team or Audit', async () => {
    await signIn(second, stack.proxy.origin, viewer);
    const page = await second.openPage('ui/popup.html?tab=payments');
    await page.getByRole('table', { name: 'Payments' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Download CSV' }).count(), 0);
    assert.deepEqual(
      await page
        .getByRole('tab')
        .allTextContents()
        .then((tabs) => tabs.map((tab) => tab.trim())),
      ['Payments', 'Purchases', 'Orders', 'Approvals', 'Events', 'Links', 'Wallet', 'Settings'],
    );
    await page.getByRole('tab', { name: 'Orders' }).click();
    await page.getByRole('table', { name: 'Orders' }).waitFor();
    assert.equal(await page.getByText('New order').count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Edit / }).count(), 0);
    await page.close();
    // A pending request: a viewer reads it, but is not offered to decide it.
    const asked = await as(stack.proxy.origin, grace)('/api/orders', {
      body: {
        customerName: 'Grace',
        chainId: 31337,
        amount: '3',
        mintWallet: MINT_WALLET,
        customerOrder: 'VIEW-1',
        stableCoin: 'eUSD',
      },
    });
    assert.equal(asked.status, 202);
    const approvals = await second.openPage('ui/popup.html?tab=approvals');
    await approvals.getByRole('button', { name: 'Create a mint order: VIEW-1' }).click();
    const pane = approvals.getByRole('region', { name: 'Request: Create a mint order' });
    await pane.getByText('Waiting for a second person to approve.').waitFor();
    assert.equal(await pane.getByRole('button', { name: 'Approve', exact: true }).count(), 0);
    assert.equal(await badge(second), '', 'nothing a viewer may decide');
    await approvals.close();
  });
});

/**
 * Event destinations and merchant keys in the built extension, in real Chromium against a real proxy
 * and emulator whose events go to a receiver on loopback: an admin adds a destination in the Events
 * view, its secret shown once, and sends a test event the receiver verifies (standardwebhooks);
 * disabled, its events wait, and enabled they arrive, each attempt in its delivery log; its secret
 * rotated, events carry both signatures; a failing receiver's backlog skipped after a confirmation
 * (audited) and the destination removed. An admin makes, rolls and revokes a merchant key in the Keys
 * tab. A viewer reads destinations and their logs but is offered no change, and has no Keys tab.
 * No secret is ever sent anywhere by the extension, nor kept in its storage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright';
import { Webhook } from 'standardwebhooks';
import { http } from '../support/http.ts';
import { launchExtension, leaks, signIn, type LoadedExtension } from '../support/extension.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import { startReceiver, type ReceivedRequest, type ScriptedAnswer } from '../support/webhook-receiver.ts';

/** What a person reads (a line break is a space), on one line. */
const text = async (locator: Locator) => (await locator.innerText()).replace(/\s+/g, ' ').trim();
const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Verifies a delivery as a merchant's server would, with the standardwebhooks library. */
const verify = (request: ReceivedRequest, secret: string) =>
  new Webhook(secret).verify(
    request.body,
    Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
    ),
  ) as { type: string; data: Record<string, unknown> };

describe('extension: event destinations and merchant keys', () => {
  /** The receiver's next answers, in order; 200 when none is left. */
  const script: ScriptedAnswer[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;
  let extension: LoadedExtension;
  let page: Page;
  let destinationId: string;
  const secrets: string[] = [];
  const row = () => page.locator(`tr[data-destination]`, { hasText: receiver.url });
  const pane = () => page.getByRole('region', { name: `Destination ${receiver.url}` });
  /** The pane's delivery log, read again until `done` says what it shows is what the test waits for. */
  const logUntil = (done: (rows: Locator) => Promise<boolean>, what: string) =>
    eventually(async () => {
      await pane().getByRole('button', { name: 'Refresh: Delivery log' }).click();
      const rows = pane().getByRole('table', { name: 'Delivery log' }).locator('tbody tr');
      return (await done(rows)) || undefined;
    }, what);
  /** A completed payment: checkout.paid and payment.completed, for the destinations that take them. */
  const paid = async (reference: string) => {
    const payment = await stack.pay(await stack.checkout({ reference }));
    await stack.control(`/payments/${payment.body.transactionId as string}/outcome`, { status: 'COMPLETED' });
  };

  before(async () => {
    receiver = await startReceiver({ respond: () => script.shift() ?? 200 });
    // Retries come within a fraction of a second, and a receiver's Retry-After of an hour still falls
    // within the (scaled) three days before a delivery is given up.
    stack = await startStack({ proxy: { eventRetryScale: 0.02, eventPollMs: 50, eventSweepMs: 100 } });
    extension = await launchExtension();
    await signIn(extension, stack.proxy.origin, stack.admin);
    page = await extension.openPage('ui/popup.html?tab=events');
  });
  after(async () => {
    await page?.close();
    await extension?.dispose();
    await stack?.stop();
    await receiver?.close();
  });

  it('an admin adds a destination: its secret is shown once, and a test event reaches the receiver, verified', async () => {
    await page.locator('#not-configured').filter({ hasText: 'this proxy has no destination' }).waitFor();
    await page.getByText('Add a destination').click();
    const form = page.getByRole('form', { name: 'Add a destination' });
    await form.getByLabel('URL').fill('http://receiver.example/hook');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.locator('#url-problem').filter({ hasText: 'Enter an https URL' }).waitFor();
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Description (optional)').fill('Fulfilment');
    await form.getByLabel('All event types (*)').uncheck();
    await form.getByLabel('checkout.paid').check();
    await form.getByLabel('payment.completed').check();
    await form.getByRole('button', { name: 'Add' }).click();

    const shown = page.getByRole('region', { name: `Signing secret of ${receiver.url}` });
    const secret = await shown.getByRole('textbox').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    secrets.push(secret);
    await row().filter({ hasText: 'Enabled' }).filter({ hasText: 'Fulfilment' }).waitFor();
    destinationId = (await row().getAttribute('data-destination'))!;
    const listed = await stack.operator('/api/event-destinations');
    assert.ok(!listed.text.includes(secret), 'the proxy never shows the secret again');
    assert.deepEqual(listed.body.destinations[0].enabledEvents, ['checkout.paid', 'payment.completed']);

    await row()
      .getByRole('button', { name: `Destination ${receiver.url}` })
      .click();
    await pane().getByRole('button', { name: 'Send test event' }).click();
    const answered = pane()
      .getByRole('status')
      .filter({
        hasText: new RegExp(`^Test event evt_test_\\S+: ${escape(receiver.url)} answered 200 in \\d+ ms\\.$`),
      });
    await answered.waitFor();
    const [test] = await receiver.waitFor(1);
    const event = verify(test!, secret);
    assert.equal(event.type, 'kassa.test');
    assert.equal(event.data.destinationId, destinationId);
    assert.match(await text(answered), new RegExp(escape(String(test!.headers['webhook-id']))));
    await pane().getByText('No deliveries.').waitFor();
  });

  it('disabled, its events wait; enabled, they arrive, and the delivery log shows each attempt', async () => {
    await pane().getByRole('button', { name: 'Disable' }).click();
    await pane()
      .getByRole('status')
      .filter({ hasText: `${receiver.url} is disabled` })
      .waitFor();
    await row().filter({ hasText: 'Disabled' }).waitFor();
    const before = receiver.received.length;
    await paid('EXT-DEST-1');
    await logUntil(
      async (rows) =>
        (await rows.count()) === 2 && (await rows.locator('td.status', { hasText: 'pending' }).count()) === 2,
      'two deliveries waiting',
    );
    assert.match(await text(pane().getByRole('table', { name: 'Delivery log' })), /0 attempts.*0 attempts/);
    assert.equal(receiver.received.length, before, 'nothing is sent to a disabled destination');

    // Enabled: the first answer is a 503, retried; both events arrive, signed with its secret.
    script.push({ status: 503 });
    await pane().getByRole('button', { name: 'Enable' }).click();
    await pane()
      .getByRole('status')
      .filter({ hasText: `${receiver.url} is enabled` })
      .waitFor();
    const arrived = (await receiver.waitFor(before + 3)).slice(before);
    const types = arrived.map((request) => verify(request, secrets[0]!).type);
    assert.deepEqual(new Set(types), new Set(['checkout.paid', 'payment.completed']));
    const [failed, retried, next] = arrived.map((request) => String(request.headers['webhook-id']));
    assert.equal(retried, failed, 'the failed delivery is tried again before the next one');
    assert.notEqual(next, failed);

    await logUntil(
      async (rows) => (await rows.locator('td.status', { hasText: 'delivered' }).count()) === 2,
      'both delivered',
    );
    const first = pane().locator(`tr[data-delivery="${failed}"]`);
    assert.match(await text(first), /delivered 2 attempts 200 \d+ ms/);
    assert.match(await text(pane().locator(`tr[data-delivery="${next}"]`)), /delivered 1 attempts 200 \d+ ms/);
    await row().filter({ hasText: 'Enabled' }).waitFor();
  });

  it('its secret rotated with an overlap: the new one shown once, and events carry both signatures', async () => {
    const rotation = pane().getByRole('form', { name: 'Rotate secret' });
    await rotation.getByLabel('The old secret keeps signing for').selectOption({ label: '24 hours' });
    await rotation.getByRole('button', { name: 'Rotate secret' }).click();
    await pane()
      .getByRole('status')
      .filter({ hasText: `New secret for ${receiver.url}. The previous one signs beside it until` })
      .waitFor();
    const secret = await pane()
      .getByRole('region', { name: `Signing secret of ${receiver.url}` })
      .getByRole('textbox')
      .inputValue();
    assert.notEqual(secret, secrets[0]);
    secrets.push(secret);
    await pane().getByText('Previous secret signs until').waitFor();

    const before = receiver.received.length;
    await pane().getByRole('button', { name: 'Send test event' }).click();
    await pane().getByRole('status').filter({ hasText: 'answered 200' }).waitFor();
    const [test] = (await receiver.waitFor(before + 1)).slice(before);
    assert.equal(verify(test!, secrets[0]!).type, 'kassa.test', 'the old secret verifies it');
    assert.equal(verify(test!, secret).type, 'kassa.test', 'the new secret verifies it');
  });

  it('a failing receiver’s backlog: the log shows the refusal and the next retry; skipped after a confirmation (audited); then the destination is removed', async () => {
    // The receiver refuses and asks for an hour: the head waits, and the event behind it too.
    script.push({ status: 503, headers: { 'Retry-After': '3600' } });
    const before = receiver.received.length;
    await paid('EXT-DEST-2');
    await receiver.waitFor(before + 1);
    await logUntil(
      async (rows) => (await rows.locator('td.status', { hasText: /pending\s*1 attempts/ }).count()) === 1,
      'the refused delivery',
    );
    const refused = pane().locator('tr[data-status=pending]', { hasText: '503' });
    assert.match(await text(refused.locator('td').nth(3)), /\d/, 'its next retry is shown');

    await pane().getByRole('button', { name: 'Disable' }).click();
    await pane().getByRole('status').filter({ hasText: 'is disabled' }).waitFor();
    await pane().getByRole('button', { name: 'Skip waiting events' }).click();
    await pane().getByText(`Skip the 2 events waiting for ${receiver.url}? They will never be sent there.`).waitFor();
    await pane().getByRole('button', { name: 'Confirm' }).click();
    await pane()
      .getByRole('status')
      .filter({ hasText: `Skipped for ${receiver.url}: 2 events.` })
      .waitFor();
    await logUntil(
      async (rows) => (await rows.locator('td.status', { hasText: 'skipped' }).count()) === 2,
      'both skipped',
    );
    const trail = await stack.operator('/api/audit?action=event_destination.skipped');
    const [record] = trail.body.records as Array<{ actor: { name: string; via: string }; after: { skipped: number } }>;
    assert.deepEqual(record?.actor, { ...record?.actor, name: stack.admin.name, via: 'device' });
    assert.equal(record?.after.skipped, 2);

    await pane().getByRole('button', { name: 'Remove' }).click();
    await pane().getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${receiver.url} removed.` })
      .waitFor();
    await row().waitFor({ state: 'detached' });
    assert.deepEqual((await stack.operator('/api/event-destinations')).body.destinations, []);
  });

  it('an admin makes a merchant key (shown once), rolls it with an expiry for the old one, and revokes the old one', async () => {
    const keys = await extension.openPage('ui/popup.html?tab=keys');
    await keys.getByText('No merchant keys.').waitFor();
    await keys.getByText('Make a key').click();
    const form = keys.getByRole('form', { name: 'Make a key' });
    await form.getByLabel('Name').fill('Shop backend');
    await form.getByLabel('Expires after (days; empty: never)').fill('0');
    await form.getByRole('button', { name: 'Make key' }).click();
    await keys.locator('#days-problem').waitFor();
    await form.getByLabel('Expires after (days; empty: never)').fill('90');
    await form.getByRole('button', { name: 'Make key' }).click();
    const first = await keys.getByRole('region', { name: 'Secret of Shop backend' }).getByRole('textbox').inputValue();
    assert.match(first, /^kassa_mk_/);
    secrets.push(first);
    const withKey = (secret: string) =>
      http(`${stack.proxy.origin}/api/checkouts`, {
        body: { amount: '10.00', currencyCode: 'EUR', reference: 'EXT-KEY' },
        headers: { Authorization: `Bearer ${secret}` },
      });
    assert.equal((await withKey(first)).status, 201);
    // Made with the scopes ticked by default: payments, not payment links (ticked only when asked for).
    const made = (await stack.operator('/api/merchant-keys')).body.keys as Array<{ name: string; scopes: string[] }>;
    assert.deepEqual(made.find((key) => key.name === 'Shop backend')?.scopes, ['checkouts:create', 'checkouts:read']);
    const oldRow = keys.locator('tr[data-key][data-state=active]', { hasText: 'Shop backend' });
    await oldRow.filter({ hasText: 'checkouts:create' }).filter({ hasText: 'checkouts:read' }).waitFor();
    const oldId = (await oldRow.getAttribute('data-key'))!;

    const roll = keys.getByRole('form', { name: 'Roll Shop backend' });
    await roll.getByLabel('The old key keeps working for').selectOption({ label: '1 hour' });
    await roll.getByRole('button', { name: 'Roll' }).click();
    await keys.getByRole('status').filter({ hasText: 'Shop backend rolled: the old key works until' }).waitFor();
    const second = await keys.getByRole('region', { name: 'Secret of Shop backend' }).getByRole('textbox').inputValue();
    assert.notEqual(second, first);
    secrets.push(second);
    assert.equal((await withKey(first)).status, 201, 'the old key works during the overlap');
    assert.equal((await withKey(second)).status, 201);
    await keys.locator('tr[data-key][data-state=active]').nth(1).waitFor();

    const old = keys.locator(`tr[data-key="${oldId}"]`);
    await old.getByRole('button', { name: 'Revoke Shop backend' }).click();
    await old.getByText('Revoke Shop backend? Every request with it is refused from now on.').waitFor();
    await old.getByRole('button', { name: 'Confirm' }).click();
    await keys.getByRole('status').filter({ hasText: 'Shop backend revoked.' }).waitFor();
    await old.filter({ hasText: 'Revoked' }).waitFor();
    assert.equal((await withKey(first)).status, 401);
    assert.equal((await withKey(second)).status, 201);
    const listed = (await stack.operator('/api/merchant-keys')).text;
    for (const secret of [first, second]) assert.ok(!listed.includes(secret), 'never shown again');
    await keys.close();
  });

  it('the extension sends no secret anywhere and keeps none', async () => {
    assert.deepEqual(leaks(extension.requests, secrets), []);
    const kept = JSON.stringify([await extension.storage('local'), await extension.storage('session')]);
    for (const secret of secrets) assert.ok(!kept.includes(secret), 'no secret in the extension’s storage');
  });

  it('a viewer reads destinations and their logs but is offered no change, and has no Keys tab', async () => {
    const url = `${receiver.url}/analytics`;
    const added = await stack.operator('/api/event-destinations', { body: { url } });
    assert.equal(added.status, 201, added.text);
    const viewer = await stack.addOperator('viewer', 'Vera Viewer');
    await signIn(extension, stack.proxy.origin, viewer);
    const events = await extension.openPage('ui/popup.html?tab=events');
    await events
      .locator('#read-only')
      .filter({ hasText: 'changing them needs the permission “manage event destinations (destinations:manage)”' })
      .waitFor();
    await events.getByRole('button', { name: `Destination ${url}` }).click();
    const detail = events.getByRole('region', { name: `Destination ${url}` });
    await detail.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await detail.getByText('No deliveries.').waitFor();
    for (const name of ['Send test event', 'Disable', 'Rotate secret', 'Remove'])
      assert.equal(await detail.getByRole('button', { name }).count(), 0, `${name} is not offered`);
    assert.equal(await events.getByText('Add a destination').count(), 0);
    assert.equal(await events.getByRole('tab', { name: 'Keys' }).count(), 0);
    await events.close();

    const keys = await extension.openPage('ui/popup.html?tab=keys');
    await keys
      .getByRole('alert')
      .filter({ hasText: 'it needs the permission “manage merchant keys (merchant_keys:manage)”' })
      .waitFor();
    await keys.close();
  });
});

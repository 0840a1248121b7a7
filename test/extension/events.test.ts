/**
 * The extension's Events view, in real Chromium against a real proxy and emulator whose events go to
 * a receiver on loopback: the not-configured state, the list with its status and type filters, an
 * event's attempts and payload, Redeliver for one event and for every failed one since a moment, and
 * an endpoint disabled by 410 Gone answers, enabled again.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyEvent } from '../../server/index.ts';
import { launchExtension, leaks, signIn, type LoadedExtension } from '../support/extension.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const text = (value: string | null) => (value ?? '').replace(/\s+/g, ' ').trim();

/** The merchant's endpoint: answers `status` (changed by the test), records every delivery. */
async function startEndpoint() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const endpoint = { status: 503, received, url: '' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = endpoint.status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kassa/events`;
  return {
    endpoint,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('extension: the Events view', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let receiver: Awaited<ReturnType<typeof startEndpoint>>;
  let stack: Stack;
  let bare: Stack;
  let extension: LoadedExtension;

  before(async () => {
    receiver = await startEndpoint();
    stack = await startStack({ env: { KASSA_EVENTS_URL: receiver.endpoint.url, KASSA_EVENTS_SECRET: secret } });
    bare = await startStack({ reuseSandbox: stack.sandbox });
    // One emulator, one webhook address: the payment service tells the proxy that sends events.
    await stack.control(`/keys/${stack.sandbox.keyId}`, { webhookUrl: stack.webhookUrl() }, 'PATCH');
    extension = await launchExtension();
  });
  after(async () => {
    await extension?.dispose();
    await bare?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  it('a proxy that sends no events: the view says so and how to change it', async () => {
    await signIn(extension, bare.proxy.origin, bare.admin);
    const page = await extension.openPage('ui/popup.html?tab=events');
    await page.locator('#not-configured').filter({ hasText: 'KASSA_EVENTS_URL' }).waitFor();
    await page.getByText('No events.').waitFor();
    await page.close();
  });

  it('lists events newest first, filters by status and type, shows attempts and payload, redelivers one', async () => {
    await signIn(extension, stack.proxy.origin, stack.admin);
    const checkoutId = await stack.checkout({ reference: 'EXT-EVENTS-1' });
    const payment = await stack.pay(checkoutId);
    const transactionId = payment.body.transactionId as string;
    assert.equal(
      (
        await stack.control(`/payments/${transactionId}/outcome`, {
          status: 'COMPLETED',
          networkStatus: 'PAYMENT_EXECUTED_CREDITED',
        })
      ).status,
      200,
    );
    // The receiver is down (503): both events are tried and stay pending.
    await eventually(() => (receiver.endpoint.received.length >= 2 ? true : undefined), 'two attempts');

    const page = await extension.openPage('ui/popup.html?tab=events');
    await page.getByText(`Sent to ${receiver.endpoint.url}`).waitFor();
    const rows = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    await rows.nth(1).waitFor();
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
    assert.ok(
      shown.some((row) => /checkout\.paid/.test(row)),
      shown.join('\n'),
    );
    assert.ok(
      shown.some((row) => /payment\.completed/.test(row)),
      shown.join('\n'),
    );
    assert.match(text(shown.join(' ')), /pending/);

    await page.getByLabel('Filter by type').selectOption('checkout.paid');
    await page.locator('tbody tr', { hasText: 'payment.completed' }).waitFor({ state: 'detached' });
    assert.ok(
      extension.requests.some((request) =>
        request.url.startsWith(`${stack.proxy.origin}/api/events?type=checkout.paid`),
      ),
      'the filter is the proxy’s',
    );
    await page.getByLabel('Filter by status').selectOption('delivered');
    await page.getByText('No events with status delivered of type checkout.paid.').waitFor();
    await page.getByLabel('Filter by status').selectOption('pending');
    const paidRow = rows.filter({ hasText: 'checkout.paid' });
    await paidRow.waitFor();
    const eventId = (await paidRow.getAttribute('data-event'))!;

    // Its detail: every attempt with the receiver's answer, and the payload as sent.
    await page.getByRole('button', { name: `Details of ${eventId}` }).click();
    const detail = page.locator('kassa-event-detail');
    await detail.getByRole('table', { name: 'Attempts' }).locator('tbody tr', { hasText: '503' }).first().waitFor();
    const payload = JSON.parse((await detail.locator('pre').textContent())!);
    assert.equal(payload.type, 'checkout.paid');
    assert.equal(payload.data.checkoutId, checkoutId);

    // The receiver is back; Redeliver sends it now, signed as before.
    receiver.endpoint.status = 204;
    const before = receiver.endpoint.received.length;
    await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
    await page.getByRole('status').filter({ hasText: 'queued for delivery now' }).first().waitFor();
    const delivered = await eventually(
      () => receiver.endpoint.received.slice(before).find((request) => request.headers['webhook-id'] === eventId),
      'the redelivery',
    );
    const event = verifyEvent(delivered.body, delivered.headers, secret);
    assert.equal(event.type, 'checkout.paid');
    await page.getByLabel('Filter by status').selectOption('delivered');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      return (await rows.filter({ hasText: 'checkout.paid' }).count()) ? true : undefined;
    }, 'the event delivered');
    await detail.getByRole('table', { name: 'Attempts' }).locator('tbody tr', { hasText: '204' }).first().waitFor();
    await page.close();
  });

  it('redelivers every failed event since a moment, and refuses a missing moment', async () => {
    const page = await extension.openPage('ui/popup.html?tab=events');
    const form = page.getByRole('form', { name: 'Redeliver failed events' });
    await form.getByLabel('Failed since').fill('');
    await form.getByRole('button', { name: 'Redeliver failed' }).click();
    await page.locator('#list-error').filter({ hasText: 'Pick the date and time' }).waitFor();

    await form.getByLabel('Failed since').fill('2020-01-01T00:00');
    await form.getByRole('button', { name: 'Redeliver failed' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^\d+ failed events? queued for delivery again\.$/ })
      .waitFor();
    const bulk = extension.requests.find(
      (request) => request.method === 'POST' && request.url === `${stack.proxy.origin}/api/events/redeliver`,
    );
    assert.ok(bulk, 'the bulk redelivery is the proxy’s');
    const body = JSON.parse(bulk.postData ?? '{}');
    assert.equal(body.status, 'failed');
    assert.equal(new Date(body.since).getTime(), new Date('2020-01-01T00:00').getTime());
    assert.deepEqual(leaks(extension.requests, [secret]), []);
    await page.close();
  });

  it('an endpoint disabled by 410 Gone: the view says so and why, and its button sends events again', async () => {
    // The receiver says Gone to every event; three in a row disable the endpoint.
    receiver.endpoint.status = 410;
    for (const reference of ['EXT-GONE-1', 'EXT-GONE-2']) {
      const payment = await stack.pay(await stack.checkout({ reference }));
      await stack.control(`/payments/${payment.body.transactionId}/outcome`, { status: 'COMPLETED' });
    }
    await eventually(
      async () => ((await stack.operator('/api/events')).body.endpoints[0].enabled ? undefined : true),
      'the endpoint disabled',
    );
    // The connection test says why a proxy whose services are all ok is degraded.
    const settings = await extension.openPage('ui/popup.html?tab=settings');
    await settings.getByRole('button', { name: 'Test connection' }).click();
    await settings
      .getByRole('status')
      .filter({ hasText: /^Connected: proxy \S+, degraded \(payments ok, .*, events disabled\)$/ })
      .waitFor();
    await settings.close();
    const page = await extension.openPage('ui/popup.html?tab=events');
    const alert = page.getByRole('alert').filter({ hasText: `Events are not sent to ${receiver.endpoint.url}` });
    await alert.filter({ hasText: 'answered 410 Gone 3 times in a row' }).waitFor();
    receiver.endpoint.status = 204;
    await alert.getByRole('button', { name: `Send events again to ${receiver.endpoint.url}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Events go to ${receiver.endpoint.url} again` })
      .waitFor();
    await alert.waitFor({ state: 'detached' });
    assert.equal((await stack.operator('/api/events')).body.endpoints[0].enabled, true);
    assert.ok(
      extension.requests.some(
        (request) => request.method === 'POST' && /\/api\/events\/endpoints\/ep_[\w-]+\/enable$/.test(request.url),
      ),
      'the action is the proxy’s',
    );
    await page.close();
  });
});

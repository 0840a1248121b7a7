import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { paymentRecordSchema, webhookEventSchema } from '../../schemas/pay.ts';
import { webhookAttemptSchema } from '../../schemas/sandbox.ts';
import fc from 'fast-check';
import { findBanks, SANDBOX_BANKS } from '../../sandbox/pay/banks.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';
import { http } from '../support/http.ts';
import { eventually } from '../support/stack.ts';
import { sandboxClient, validPayment } from '../support/sandbox-client.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const submitFlow = (flowUrl: string, form: Record<string, string>) =>
  http(flowUrl, {
    raw: new URLSearchParams(form).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });

describe('sandbox: the hosted flow page', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let token: string;
  const start = async (overrides: Record<string, unknown> = {}) =>
    (await client.initiate(token, validPayment(overrides))).body;

  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    client = sandboxClient(sandbox);
    token = await client.token();
  });
  after(() => sandbox.stop());

  it('shows the amount and the banks for the currency, with no script', async () => {
    const payment = await start({ currencyCode: 'GBP', amount: 12.3 });
    const page = await http(payment.flowUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.match(page.text, /£12\.30/);
    assert.match(page.text, /value="bank_northwind"/);
    assert.doesNotMatch(page.text, /value="bank_lumen"/, 'a euro-only bank is not offered for sterling');
    assert.match(page.text, /Authorise payment/);
    assert.match(page.text, /Cancel/);
    assert.doesNotMatch(page.text, /<script/i);
  });

  it('names the payee (the key’s name, as the dashboard renames it) and finds banks by name, with no script', async () => {
    const payment = await start({ currencyCode: 'EUR', amount: 12.5 });
    assert.match(
      (await http(payment.flowUrl)).text,
      /<span class="muted">To<\/span> <strong>Default sandbox key<\/strong>/,
    );
    const renamed = await http(`${sandbox.control}/keys/${sandbox.keyId}`, {
      method: 'PATCH',
      body: { name: 'Kassa demo shop' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    const page = await http(payment.flowUrl);
    assert.match(page.text, /<span class="muted">To<\/span> <strong>Kassa demo shop<\/strong>/);
    assert.match(page.text, /<form method="get" role="search"/);
    const banks = (text: string) => [...text.matchAll(/name="providerId"\s+value="(\w+)"/g)].map((match) => match[1]);
    assert.deepEqual(banks(page.text), [
      'bank_xyz',
      'bank_lumen',
      'bank_havel',
      'bank_aurora',
      'bank_stroom',
      'bank_sandbox_rejects',
    ]);
    // Any case, any accents; the language asked for stays across the search.
    const found = await http(`${payment.flowUrl}?q=LUMÉN&lang=de`);
    assert.deepEqual(banks(found.text), ['bank_lumen']);
    assert.match(found.text, /<input type="hidden" name="lang" value="de"/);
    const none = await http(`${payment.flowUrl}?q=%3Cb%3Enowhere&lang=de`);
    assert.deepEqual(banks(none.text), []);
    assert.match(none.text, /Keine Bank passt zu „&lt;b&gt;nowhere“\./);
    assert.match(none.text, /<a href="\?lang=de">Alle Banken zeigen<\/a>/);
    assert.doesNotMatch(none.text, /<b>nowhere/, 'what was searched for is escaped');
    assert.doesNotMatch(page.text, /<script/i);
  });

  it('any search: the banks whose name holds it, never a throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (query) => {
        const found = findBanks(SANDBOX_BANKS, query);
        for (const bank of found) assert.ok(SANDBOX_BANKS.includes(bank));
        if (!query.trim()) assert.equal(found.length, SANDBOX_BANKS.length);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('speaks the customer’s language (the address’s lang, else Accept-Language), follows dark mode, and has an icon', async () => {
    const payment = await start({ currencyCode: 'EUR', amount: 12.5 });
    const german = await http(payment.flowUrl, { headers: { 'Accept-Language': 'fr;q=0.5, de-CH, en;q=0.1' } });
    assert.match(german.text, /<html lang="de">/);
    assert.match(german.text, /12,50\s€/);
    assert.match(german.text, /Zahlung freigeben/);
    assert.match(german.text, /prefers-color-scheme: dark/);
    const dutch = await http(`${payment.flowUrl}?lang=nl`, { headers: { 'Accept-Language': 'de' } });
    assert.match(dutch.text, /Betaling goedkeuren/);
    const unknown = await http(payment.flowUrl, { headers: { 'Accept-Language': 'ja, zz;q=0.5' } });
    assert.match(unknown.text, /<html lang="en">/);
    assert.match(unknown.text, /Authorise payment/);
    const icon = unknown.text.match(/<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/)?.[1];
    assert.ok(icon);
    const served = await http(new URL(icon, payment.flowUrl).href);
    assert.equal(served.status, 200);
    assert.match(served.headers.get('content-type')!, /image\/svg\+xml/);
  });

  it('authorises: sends the browser to redirectUrl unchanged and completes the payment', async () => {
    const payment = await start({ redirectUrl: 'http://localhost:8080/back?kassa_status=abc&x=%20y' });
    const answer = await submitFlow(payment.flowUrl, { providerId: 'bank_lumen', action: 'authorise' });
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get('location'), 'http://localhost:8080/back?kassa_status=abc&x=%20y');
    const record = paymentRecordSchema.parse((await client.read(token, payment.transactionId)).body);
    assert.equal(record.status, 'COMPLETED');
    assert.equal(record.networkStatus, 'PAYMENT_EXECUTED_CREDITED');
    assert.equal(record.providerId, 'bank_lumen');
    assert.equal(record.paymentRail, 'SepaCreditTransfer');
    assert.equal(record.completedTimestamp, record.updatedTimestamp);
    assert.ok(Date.parse(record.updatedTimestamp) >= Date.parse(record.initiationTimestamp));
  });

  it('cancels: FAILED with networkStatus CANCELLED', async () => {
    const payment = await start({ currencyCode: 'GBP' });
    const answer = await submitFlow(payment.flowUrl, { action: 'cancel' });
    assert.equal(answer.status, 303);
    const record = (await client.read(token, payment.transactionId)).body;
    assert.equal(record.status, 'FAILED');
    assert.equal(record.networkStatus, 'CANCELLED');
    assert.equal(record.paymentRail, 'UkFasterPayments');
    assert.equal(record.completedTimestamp, null);
  });

  it('a bank that rejects: FAILED with networkStatus REJECTED', async () => {
    const payment = await start();
    await submitFlow(payment.flowUrl, { providerId: 'bank_sandbox_rejects', action: 'authorise' });
    const record = (await client.read(token, payment.transactionId)).body;
    assert.equal(record.status, 'FAILED');
    assert.equal(record.networkStatus, 'REJECTED');
  });

  it('asks again when no bank, a wrong bank or no action is sent, changing nothing', async () => {
    const payment = await start();
    const forms: Array<Record<string, string>> = [
      { action: 'authorise' },
      { action: 'authorise', providerId: 'bank_northwind' },
      { providerId: 'bank_xyz' },
    ];
    for (const form of forms) {
      const answer = await submitFlow(payment.flowUrl, form);
      assert.equal(answer.status, 400);
      assert.match(answer.text, /Choose your bank/);
    }
    assert.equal((await client.read(token, payment.transactionId)).body.status, 'PENDING');
  });

  it('a finished payment cannot be moved again', async () => {
    const payment = await start();
    await submitFlow(payment.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
    const again = await submitFlow(payment.flowUrl, { action: 'cancel' });
    assert.equal(again.status, 409);
    assert.match((await http(payment.flowUrl)).text, /This payment is completed/);
    assert.equal((await client.read(token, payment.transactionId)).body.status, 'COMPLETED');
    assert.equal((await http(`${sandbox.pay}/flow/${crypto.randomUUID()}`)).status, 404);
  });

  it('settles an authorised payment after the settlement delay, not before', async () => {
    const slow = await startSandbox({ settlementDelayMs: 1_000 });
    const slowClient = sandboxClient(slow);
    try {
      const slowToken = await slowClient.token();
      const payment = (await slowClient.initiate(slowToken, validPayment())).body;
      const authorised = Date.now();
      await submitFlow(payment.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
      const settled = await eventually(async () => {
        const record = (await slowClient.read(slowToken, payment.transactionId)).body;
        return record.status === 'PENDING' ? undefined : record;
      }, 'the bank to settle');
      assert.equal(settled.status, 'COMPLETED');
      // A lower bound, by the payment's own times: a slow machine only adds to it.
      const waited = Date.parse(settled.completedTimestamp) - authorised;
      assert.ok(waited >= 1_000, `settled ${waited} ms after the authorisation`);
    } finally {
      await slow.stop();
    }
  });

  it('holds a payment PENDING and AUTHORISED until released, then settles it as its authorisation chose', async () => {
    const [authorised, rejected, early] = [await start(), await start(), await start()];
    for (const { transactionId } of [authorised, rejected, early])
      assert.equal((await client.control(`/payments/${transactionId}/hold`, {})).status, 200);
    await submitFlow(authorised.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
    await submitFlow(rejected.flowUrl, { providerId: 'bank_sandbox_rejects', action: 'authorise' });
    // However short the settlement delay (none in this sandbox), the bank waits.
    for (const { transactionId } of [authorised, rejected]) {
      const during = (await client.read(token, transactionId)).body;
      assert.deepEqual([during.status, during.networkStatus], ['PENDING', 'AUTHORISED']);
    }
    const released = await client.control(`/payments/${authorised.transactionId}/release`, {});
    assert.equal(released.status, 200);
    assert.deepEqual([released.body.status, released.body.networkStatus], ['COMPLETED', 'PAYMENT_EXECUTED_CREDITED']);
    assert.equal(released.body.providerId, 'bank_xyz');
    const refused = await client.control(`/payments/${rejected.transactionId}/release`, {});
    assert.deepEqual([refused.body.status, refused.body.networkStatus], ['FAILED', 'REJECTED']);
    // Released before the customer answered: the hold is simply gone, and the payment settles as usual.
    assert.equal((await client.control(`/payments/${early.transactionId}/release`, {})).status, 200);
    assert.equal((await client.read(token, early.transactionId)).body.status, 'PENDING');
    await submitFlow(early.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
    assert.equal((await client.read(token, early.transactionId)).body.status, 'COMPLETED');
    // Nothing to hold or release once final or not held; unknown payments are 404.
    assert.equal((await client.control(`/payments/${authorised.transactionId}/hold`, {})).status, 409);
    const notHeld = await start();
    assert.equal((await client.control(`/payments/${notHeld.transactionId}/release`, {})).status, 409);
    assert.equal((await client.control(`/payments/${crypto.randomUUID()}/hold`, {})).status, 404);
  });

  it('sets an outcome through the control API, and refuses a second one', async () => {
    const payment = await start();
    const outcome = await client.control(`/payments/${payment.transactionId}/outcome`, {
      status: 'FAILED',
      networkStatus: 'REJECTED',
    });
    assert.equal(outcome.status, 200);
    assert.equal(outcome.body.status, 'FAILED');
    assert.equal(outcome.body.networkStatus, 'REJECTED');
    assert.equal(outcome.body.providerId, 'bank_xyz');
    const again = await client.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    assert.equal(again.status, 409);
    assert.equal(
      (await client.control(`/payments/${crypto.randomUUID()}/outcome`, { status: 'COMPLETED' })).status,
      404,
    );
    assert.equal((await client.control(`/payments/${payment.transactionId}/outcome`, { status: 'DONE' })).status, 400);
  });
});

describe('sandbox: the payment.status_updated webhook', () => {
  it('posts the documented payload to the key webhook URL on each status change', async () => {
    const receiver = await startReceiver();
    const sandbox = await startSandbox({ settlementDelayMs: 0, webhookUrl: receiver.url });
    const client = sandboxClient(sandbox);
    try {
      const token = await client.token();
      const payment = (await client.initiate(token, validPayment({ amount: 100.5 }))).body;
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(receiver.received.length, 0, 'creation is not a status change');
      await submitFlow(payment.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
      const [delivery] = await receiver.waitFor(1);
      assert.equal(delivery!.headers['content-type'], 'application/json');
      const event = webhookEventSchema.strict().parse(JSON.parse(delivery!.body));
      const record = (await client.read(token, payment.transactionId)).body;
      assert.deepEqual(event, {
        event: 'payment.status_updated',
        transactionId: payment.transactionId,
        networkPaymentId: payment.networkPaymentId,
        status: 'COMPLETED',
        amount: 100.5,
        currencyCode: 'EUR',
        timestamp: record.updatedTimestamp,
      });
      const log = (await client.control(`/webhooks?transactionId=${payment.transactionId}`)).body;
      assert.equal(log.length, 1);
      const attempt = webhookAttemptSchema.parse(log[0]);
      assert.equal(attempt.ok, true);
      assert.equal(attempt.status, 200);
    } finally {
      await sandbox.stop();
      await receiver.close();
    }
  });

  it('retries 1 s and 5 s after failures, and stops at the first 2xx', async () => {
    const receiver = await startReceiver({ answers: [500, 503] });
    const sandbox = await startSandbox({ settlementDelayMs: 0, webhookUrl: receiver.url });
    const client = sandboxClient(sandbox);
    try {
      const token = await client.token();
      const payment = (await client.initiate(token, validPayment())).body;
      await client.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      const deliveries = await receiver.waitFor(3);
      // Never sooner than the schedule says (timers are never early; a loaded machine only adds to the gaps).
      const gaps = [deliveries[1]!.at - deliveries[0]!.at, deliveries[2]!.at - deliveries[1]!.at];
      assert.ok(gaps[0]! >= 950, `first retry after 1 s, got ${gaps[0]} ms`);
      assert.ok(gaps[1]! >= 4_950, `second retry after 5 s, got ${gaps[1]} ms`);
      assert.ok(
        deliveries.every((delivery) => delivery.body === deliveries[0]!.body),
        'every attempt carries the same event',
      );
      // The receiver sees the third attempt before the emulator has logged its answer.
      const log = await eventually(async () => {
        const attempts = (await client.control('/webhooks')).body as Array<{
          attempt: number;
          status: number;
          ok: boolean;
          retryInMs: number | null;
        }>;
        return attempts.length >= 3 ? attempts : undefined;
      }, 'three logged attempts');
      // The schedule itself, as the service kept it: 1 s, then 5 s, then none after a 2xx.
      assert.deepEqual(
        log.map(({ attempt, status, ok, retryInMs }) => ({ attempt, status, ok, retryInMs })),
        [
          { attempt: 1, status: 500, ok: false, retryInMs: 1_000 },
          { attempt: 2, status: 503, ok: false, retryInMs: 5_000 },
          { attempt: 3, status: 200, ok: true, retryInMs: null },
        ],
      );
    } finally {
      await sandbox.stop();
      await receiver.close();
    }
  });

  it('gives up after one attempt and three retries; a slow answer counts as a failure', async () => {
    const receiver = await startReceiver({ delayMs: 300 });
    const sandbox = await startSandbox({
      settlementDelayMs: 0,
      webhookUrl: receiver.url,
      webhooks: { retryDelaysMs: [10, 20, 30], timeoutMs: 100 },
    });
    const client = sandboxClient(sandbox);
    try {
      const token = await client.token();
      const payment = (await client.initiate(token, validPayment())).body;
      await client.control(`/payments/${payment.transactionId}/outcome`, { status: 'FAILED' });
      await receiver.waitFor(4);
      const log = await eventually(async () => {
        const attempts = (await client.control('/webhooks')).body as Array<{
          attempt: number;
          ok: boolean;
          error: string | null;
          retryInMs: number | null;
        }>;
        return attempts.length >= 4 ? attempts : undefined;
      }, 'four logged attempts');
      assert.deepEqual(
        log.map((entry) => [entry.attempt, entry.retryInMs]),
        [
          [1, 10],
          [2, 20],
          [3, 30],
          [4, null],
        ],
        'the fourth attempt is the last',
      );
      assert.ok(
        log.every((entry) => !entry.ok && /within 100 ms/.test(entry.error ?? '')),
        JSON.stringify(log),
      );
      assert.equal(receiver.received.length, 4);
    } finally {
      await sandbox.stop();
      await receiver.close();
    }
  });

  it('sends the next event to a changed webhook URL; the payment of a revoked key still completes', async () => {
    const first = await startReceiver();
    const second = await startReceiver();
    const sandbox = await startSandbox({ settlementDelayMs: 0, webhookUrl: first.url });
    const client = sandboxClient(sandbox);
    try {
      const token = await client.token();
      const one = (await client.initiate(token, validPayment())).body;
      const two = (await client.initiate(token, validPayment())).body;
      await client.control(`/payments/${one.transactionId}/outcome`, { status: 'COMPLETED' });
      await first.waitFor(1);
      const patched = await client.control(`/keys/${sandbox.keyId}`, { webhookUrl: second.url }, 'PATCH');
      assert.equal(patched.body.webhookUrl, second.url);
      await client.control(`/keys/${sandbox.keyId}/revoke`, {});
      await submitFlow(two.flowUrl, { providerId: 'bank_xyz', action: 'authorise' });
      const [event] = await second.waitFor(1);
      assert.equal(JSON.parse(event!.body).transactionId, two.transactionId);
      assert.equal(first.received.length, 1);
    } finally {
      await sandbox.stop();
      await first.close();
      await second.close();
    }
  });

  it('requires HTTPS webhook URLs, except on loopback addresses', async () => {
    const sandbox = await startSandbox();
    const client = sandboxClient(sandbox);
    try {
      for (const webhookUrl of [
        'http://merchant.example/hook',
        'ftp://127.0.0.1/hook',
        'not a url',
        'https://user:pw@merchant.example/x',
      ]) {
        const response = await client.control('/keys', { webhookUrl });
        assert.equal(response.status, 400, webhookUrl);
        assert.match(response.body.error, /webhookUrl must be an absolute https URL/);
      }
      for (const webhookUrl of [
        'https://merchant.example/hooks/x',
        'http://127.0.0.1:9/h',
        'http://localhost/h',
        'http://[::1]:8/h',
      ]) {
        assert.equal((await client.control('/keys', { webhookUrl })).status, 201, webhookUrl);
      }
    } finally {
      await sandbox.stop();
    }
  });
});

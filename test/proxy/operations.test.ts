import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { localCoordination } from '../../proxy/state/local-coordination.ts';
import { http } from '../support/http.ts';
import { openSse } from '../support/sse-client.ts';
import { seededPayment } from '../support/seed-payments.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

describe('proxy operations: liveness and readiness', () => {
  let stack: Stack;
  const readyz = () => http(`${stack.proxy.origin}/readyz`);
  before(async () => {
    // Tokens live 2 s, so the next token attempt comes quickly after a change upstream.
    stack = await startStack({ sandbox: { tokenLifetimeSeconds: 2 } });
  });
  after(() => stack.stop());

  it('/livez and /healthz answer while the process runs; /readyz once the credentials are usable', async () => {
    assert.deepEqual((await http(`${stack.proxy.origin}/livez`)).body, { ok: true });
    assert.deepEqual((await http(`${stack.proxy.origin}/healthz`)).body, { ok: true });
    const ready = await readyz();
    assert.equal(ready.status, 200);
    assert.equal(ready.body.ready, true);
    // The test Redis keeps AOF on: nothing to warn about.
    const backend = stack.config.redisUrl
      ? { backend: 'redis', persistence: 'aof' }
      : { backend: stack.config.database ? 'postgres' : 'sqlite' };
    assert.deepEqual(ready.body.store, backend);
  });

  it('a frozen account: 503 account_frozen within one token attempt, 200 again after unfreezing', async () => {
    await stack.control('/account/freeze', { reason: 'unpaid_invoices' });
    const frozen = await eventually(async () => {
      const answer = await readyz();
      return answer.status === 503 ? answer : undefined;
    }, 'readiness to see the freeze');
    assert.equal(frozen.body.reason, 'account_frozen');
    assert.equal(frozen.body.freezeReason, 'unpaid_invoices');
    assert.ok(frozen.body.frozenAt);
    assert.equal((await http(`${stack.proxy.origin}/livez`)).status, 200, 'alive all the same');
    await stack.control('/account/unfreeze', {});
    await eventually(async () => ((await readyz()).status === 200 ? true : undefined), 'ready again');
  });

  it('a revoked client secret: 503 invalid_client', async () => {
    await stack.control(`/keys/${stack.sandbox.keyId}/revoke`, {});
    // Until readiness names the refusal: on a loaded machine a token exchange may first time out, and
    // that 503 (upstream_unreachable) is also true.
    const refused = await eventually(async () => {
      const answer = await readyz();
      return answer.status === 503 && answer.body.reason === 'invalid_client' ? answer : undefined;
    }, 'readiness to see the refusal (503 invalid_client)');
    assert.equal(refused.body.ready, false);
    assert.ok(!JSON.stringify(refused.body).includes(stack.config.payClientSecrets[0]!));
  });
});

/** RFC 4180, as a spreadsheet reads it: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += char;
  }
  assert.equal(field + row.join(''), '', 'the file ends with CRLF');
  return rows;
}

describe('proxy operations: checkout idempotency, payment search and export', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ proxy: { sseHeartbeatMs: 200 } });
  });
  after(() => stack.stop());

  it('20 concurrent retries under one Idempotency-Key make one checkout; another body under it is a 422', async () => {
    const body = { amount: '19.99', currencyCode: 'EUR', reference: 'IDEM-1', metadata: { cart: 3 } };
    const key = `idem-${randomBytes(8).toString('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => stack.merchant('/api/checkouts', { body, headers: { 'Idempotency-Key': key } })),
    );
    assert.ok(
      answers.every((answer) => answer.status === 201),
      answers.map((a) => a.status).join(),
    );
    assert.equal(new Set(answers.map((answer) => answer.body.checkoutId)).size, 1);
    assert.equal(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true').length, 19);
    const other = await stack.merchant('/api/checkouts', {
      body: { ...body, amount: '20.00' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(other.status, 422);
    const bad = await stack.merchant('/api/checkouts', { body, headers: { 'Idempotency-Key': 'no' } });
    assert.equal(bad.status, 400);
    const without = await Promise.all([
      stack.merchant('/api/checkouts', { body }),
      stack.merchant('/api/checkouts', { body }),
    ]);
    assert.notEqual(without[0].body.checkoutId, without[1].body.checkoutId, 'no key: two checkouts');
  });

  it('searches by checkout, reference, time and amount, and exports the same search as CSV', async () => {
    const started = new Date(Date.now() - 1_000).toISOString();
    const made: Array<{ transactionId: string; checkoutId: string; amount: string; reference: string }> = [];
    for (const [amount, reference] of [
      ['5.00', 'SEARCH-A'],
      ['15.50', 'SEARCH-B'],
      ['25.00', "SEARCH, 'C'"],
      ['35.00', 'SEARCH-B'],
      ['45.00', '+SUM(A1)'],
    ] as const) {
      const checkoutId = await stack.checkout({ amount, reference });
      const payment = (await stack.pay(checkoutId)).body as { transactionId: string };
      made.push({ transactionId: payment.transactionId, checkoutId, amount, reference });
    }
    const search = async (query: Record<string, string>) => {
      const answer = await stack.operator(`/api/payments?${new URLSearchParams({ from: started, ...query })}`);
      assert.equal(answer.status, 200, answer.text);
      return (answer.body.payments as Array<{ transactionId: string }>).map((payment) => payment.transactionId);
    };
    const ids = (...indexes: number[]) => indexes.map((index) => made[index]!.transactionId);
    assert.deepEqual(await search({ checkoutId: made[1]!.checkoutId }), ids(1));
    assert.deepEqual(await search({ reference: 'SEARCH-B' }), ids(3, 1));
    assert.deepEqual(await search({ minAmount: '15.50', maxAmount: '25' }), ids(2, 1));
    assert.deepEqual(await search({ minAmount: '40' }), ids(4));
    assert.deepEqual(await search({ reference: 'SEARCH-B', minAmount: '20' }), ids(3));
    assert.deepEqual(await search({ to: started }), []);
    const paged = await search({ limit: '2' });
    assert.deepEqual(paged, ids(4, 3));
    for (const query of ['from=yesterday', 'minAmount=lots', 'limit=0', 'cursor=x', 'reference=%00']) {
      assert.equal((await stack.operator(`/api/payments?${query}`)).status, 400, query);
    }

    const csv = await stack.operator(`/api/payments/export?${new URLSearchParams({ from: started })}`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="kassa-payments-/);
    const [header, ...rows] = parseCsv(csv.text);
    assert.equal(header![0], 'transactionId');
    assert.ok(header!.includes('lastCheckedAt') && header!.includes('networkPaymentId'));
    assert.deepEqual(
      rows.map((row) => row[0]),
      ids(4, 3, 2, 1, 0),
    );
    const quoted = rows.find((row) => row[0] === made[2]!.transactionId)!;
    assert.equal(quoted[header!.indexOf('reference')], "SEARCH, 'C'");
    assert.equal(quoted[header!.indexOf('amount')], '25.00');
    // A reference a spreadsheet would run as a formula is exported as text.
    const formula = rows.find((row) => row[0] === made[4]!.transactionId)!;
    assert.equal(formula[header!.indexOf('reference')], "'+SUM(A1)");
  });

  it('exports many pages of seeded payments, every one once', async () => {
    const count = 3_000;
    const marker = `SEED-${randomBytes(3).toString('hex').toUpperCase()}`;
    const now = Date.now();
    for (let i = 0; i < count; i++) await stack.proxy.services.store.recordPayment(seededPayment(i, marker, now));
    const csv = await stack.operator(`/api/payments/export?reference=${marker}`);
    const rows = parseCsv(csv.text).slice(1);
    assert.equal(rows.length, count);
    assert.equal(new Set(rows.map((row) => row[0])).size, count);
    const completed = await stack.operator(`/api/payments/export?reference=${marker}&status=COMPLETED`);
    assert.equal(parseCsv(completed.text).length - 1, count / 3);
  });

  it('the operator stream shows a new payment from its start, PENDING', async () => {
    const stream = openSse(`${stack.proxy.origin}/api/payments/events`, {
      Authorization: `Bearer ${stack.admin.token}`,
    });
    await stream.waitForComment();
    const { transactionId } = (await stack.pay(await stack.checkout())).body as { transactionId: string };
    await eventually(() =>
      stream.data().some((view) => view.transactionId === transactionId && view.status === 'PENDING')
        ? true
        : undefined,
    );
    stream.close();
  });

  it('the new routes never answer 5xx, whatever the query', async () => {
    const names = ['status', 'checkoutId', 'reference', 'from', 'to', 'minAmount', 'maxAmount', 'limit', 'cursor'];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), fc.string({ maxLength: 40 })), async (query) => {
        const search = new URLSearchParams(query);
        for (const path of ['/api/payments', '/api/payments/export']) {
          const answer = await stack.operator(`${path}?${search}`);
          assert.ok(answer.status < 500, `${path}?${search}: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe('proxy operations: /metrics', () => {
  let stack: Stack;
  const metricsToken = `mt_${randomBytes(16).toString('hex')}`;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      env: {
        KASSA_METRICS_TOKEN: metricsToken,
        KASSA_EVENTS_URL: receiver.url,
        KASSA_EVENTS_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  it('serves every named series in Prometheus text format, to the metrics or operator token only', async () => {
    const checkoutId = await stack.checkout();
    const { transactionId, statusToken } = (await stack.pay(checkoutId)).body as {
      transactionId: string;
      statusToken: string;
    };
    await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(async () =>
      (await stack.browser(`/api/payments/status/${statusToken}`)).body.status === 'COMPLETED' ? true : undefined,
    );
    await http(`${stack.proxy.origin}/hooks/payments/not-the-secret`, { body: {} });
    await receiver.waitFor(2);

    assert.equal((await http(`${stack.proxy.origin}/metrics`)).status, 401);
    assert.equal(
      (
        await http(`${stack.proxy.origin}/metrics`, {
          headers: { Authorization: `Bearer ${stack.config.merchantKey}` },
        })
      ).status,
      401,
      'the merchant key does not open it',
    );
    const operator = await stack.operator('/metrics');
    assert.equal(operator.status, 200);
    const scraped = await http(`${stack.proxy.origin}/metrics`, {
      headers: { Authorization: `Bearer ${metricsToken}` },
    });
    assert.equal(scraped.status, 200);
    assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const families = new Map(parsePrometheusTextFormat(scraped.text).map((family) => [family.name, family]));
    const series = (name: string) => {
      const family = families.get(name);
      assert.ok(family, `${name} is served`);
      return family.metrics;
    };
    const labelled = (name: string, labels: Record<string, string>) =>
      series(name).find((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));

    assert.ok(labelled('kassa_http_requests_total', { route: '/api/payments/status/:statusToken', status: '200' }));
    assert.ok(!scraped.text.includes(statusToken), 'no token becomes a label');
    assert.ok(series('kassa_http_request_duration_seconds').some((sample) => sample.buckets));
    assert.ok(
      labelled('kassa_upstream_calls_total', { service: 'pay', operation: 'v1/payments/initiate', outcome: '2xx' }),
    );
    assert.ok(labelled('kassa_upstream_calls_total', { service: 'pay', operation: 'v1/payments/:id' }));
    assert.ok(series('kassa_upstream_call_duration_seconds').length > 0);
    assert.ok(labelled('kassa_token_exchanges_total', { outcome: 'ok' }));
    assert.equal(labelled('kassa_upstream_budget_limit', { budget: 'payment' })?.value, '100');
    assert.ok(Number(labelled('kassa_upstream_budget_used', { budget: 'payment' })?.value) >= 2);
    assert.ok(series('kassa_sse_connections'));
    assert.equal(labelled('kassa_upstream_up', { service: 'pay', state: 'ok' })?.value, '1');
    assert.ok(Number(labelled('kassa_webhooks_received_total', { result: 'accepted' })?.value) >= 1);
    assert.equal(labelled('kassa_webhooks_received_total', { result: 'forged' })?.value, '1');
    assert.ok(Number(labelled('kassa_payments', { status: 'COMPLETED' })?.value) >= 1);
    assert.ok(labelled('kassa_payments_pending_by_age', { age: 'over_1d' }));
    assert.equal(series('kassa_events_outbox_depth')[0]?.value, '0', 'delivered: nothing waits');
    assert.equal(series('kassa_events_outbox_oldest_seconds')[0]?.value, '0');
    assert.ok(families.has('kassa_process_cpu_seconds_total') && families.has('kassa_nodejs_eventloop_lag_seconds'));
    assert.ok(!scraped.text.includes(metricsToken) && !scraped.text.includes(stack.admin.token));
  });
});

describe('proxy operations: reconciliation', () => {
  let stack: Stack;
  before(async () => {
    // A quota that covers the run; the payment service's own refusals are injected as faults.
    stack = await startStack({
      sandbox: { paymentsPerMinute: 100_000 },
      proxy: { coordination: localCoordination(100_000) },
    });
  });
  after(() => stack.stop());

  it('webhook re-reads the service fails are queued, not dropped: every payment reaches its status', async () => {
    const payments: Array<{ transactionId: string; statusToken: string }> = [];
    for (let i = 0; i < 100; i++) payments.push((await stack.pay(await stack.checkout())).body);
    // From now on the payment service fails the next 100 reads: each webhook's read (one request, as
    // every read of a payment is at most one per 5 s) fails.
    await stack.control('/faults', { service: 'pay', kind: '500', times: 100, path: '/v1/payments/' });
    await Promise.all(
      payments.map(({ transactionId }) => stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' })),
    );
    // Unwatched payments this young are otherwise read every 30 s: only the queue gets them there sooner.
    await eventually(async () => {
      const statuses = await Promise.all(
        payments.map(
          async ({ statusToken }) => (await stack.browser(`/api/payments/status/${statusToken}`)).body.status,
        ),
      );
      return statuses.every((status) => status === 'COMPLETED') ? true : undefined;
    }, 'every payment completed');
    assert.ok(
      stack.logs.some((line) => line.includes('payment re-read queued')),
      'some reads were queued',
    );
    // Reads for other reasons may have got there first; the follower's next sweep settles what is left.
    await eventually(
      async () => ((await stack.proxy.services.store.reconciliation.queuedRereads(10)).length === 0 ? true : undefined),
      'the queue to empty',
    );
    await stack.control('/faults', undefined, 'DELETE');
  });

  it('a payment of a replaced key is unverifiable, with the last webhook, and the operator resolves it', async () => {
    const { transactionId } = (await stack.pay(await stack.checkout())).body as { transactionId: string };
    await stack.replacePayKey();
    await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
    const listed = await eventually(async () => {
      const answer = await stack.operator('/api/payments/unverifiable');
      return answer.body.payments.find(
        (entry: { payment: { transactionId: string } }) => entry.payment.transactionId === transactionId,
      );
    }, 'the payment to be unverifiable');
    assert.match(listed.reason, /does not know this payment/);
    assert.equal(listed.payment.status, 'PENDING');
    assert.equal(listed.lastWebhook.event.status, 'COMPLETED', 'what the service last said');

    assert.equal(
      (await stack.operator(`/api/payments/resolutions/${transactionId}`, { body: { status: 'PAID', note: 'x' } }))
        .status,
      400,
    );
    const resolved = await stack.operator(`/api/payments/resolutions/${transactionId}`, {
      body: { status: 'COMPLETED', note: 'On the bank statement of 23 November, line 14' },
    });
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(resolved.body.payment.status, 'COMPLETED');
    assert.deepEqual(
      resolved.body.resolutions.map((entry: { previousStatus: string; status: string; note: string }) => [
        entry.previousStatus,
        entry.status,
        entry.note,
      ]),
      [['PENDING', 'COMPLETED', 'On the bank statement of 23 November, line 14']],
    );
    const after = await stack.operator('/api/payments/unverifiable');
    assert.ok(
      !after.body.payments.some(
        (entry: { payment: { transactionId: string } }) => entry.payment.transactionId === transactionId,
      ),
    );
    const again = await stack.operator(`/api/payments/resolutions/${transactionId}`, {
      body: { status: 'FAILED', note: 'second thoughts' },
    });
    assert.equal(again.status, 409, 'a final status never changes');
    assert.equal(
      (await stack.operator('/api/payments/resolutions/nope', { body: { status: 'FAILED', note: 'abc' } })).status,
      404,
    );
  });
});

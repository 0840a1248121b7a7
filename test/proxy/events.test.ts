import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { ConfigError } from '../../proxy/config-readers.ts';
import { loadConfig } from '../../proxy/config.ts';
import { GIVE_UP_AFTER_MS } from '../../proxy/events/retry-schedule.ts';
import { kassaEventSchema } from '../../schemas/events.ts';
import { eventually, proxyEnvFor, startStack, type Stack } from '../support/stack.ts';
import type { Json } from '../support/http.ts';
import { startReceiver, type ReceivedRequest, type ScriptedAnswer } from '../support/webhook-receiver.ts';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Verifies as a merchant's server would, with the standardwebhooks library; returns the parsed event. */
function verified(request: ReceivedRequest, secret: string) {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
  );
  return kassaEventSchema.parse(new Webhook(secret).verify(request.body, headers));
}

describe('proxy: signed events to the merchant’s server', () => {
  const secret = newSecret();
  const nextSecret = newSecret();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;
  let failing = false;

  before(async () => {
    receiver = await startReceiver({ respond: () => (failing ? 503 : 200) });
    stack = await startStack({
      env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret, KASSA_EVENTS_SECRET_NEXT: nextSecret },
      proxy: { eventRetryScale: 0.0005, eventPollMs: 50, eventSweepMs: 100 },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  const paidPayment = async (status: 'COMPLETED' | 'FAILED') => {
    const checkoutId = await stack.checkout({ metadata: { order: 'A-1' } });
    const payment = (await stack.pay(checkoutId)).body as { transactionId: string };
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status });
    return { checkoutId, transactionId: payment.transactionId };
  };
  const eventsFor = (transactionId: string) =>
    receiver.received.filter((request) => request.body.includes(transactionId));

  it('a completed checkout sends payment.completed and checkout.paid, signed with both secrets', async () => {
    const { checkoutId, transactionId } = await paidPayment('COMPLETED');
    const requests = await eventually(() =>
      eventsFor(transactionId).length >= 2 ? eventsFor(transactionId) : undefined,
    );
    const events = requests.map((request) => verified(request, secret));
    assert.deepEqual(
      events.map((event) => verified(requests[events.indexOf(event)]!, nextSecret).type),
      events.map((e) => e.type),
    );
    const completed = events.find((event) => event.type === 'payment.completed');
    const paid = events.find((event) => event.type === 'checkout.paid');
    assert.ok(completed && paid, 'both events');
    assert.equal(completed.data.transactionId, transactionId);
    assert.equal(completed.data.status, 'COMPLETED');
    assert.ok(completed.sequence >= 2, 'the payment changed at least once after it was recorded');
    assert.equal(paid.data.checkoutId, checkoutId);
    assert.equal(paid.data.state, 'paid');
    assert.deepEqual(paid.data.metadata, { order: 'A-1' });
    assert.equal(paid.data.transactionId, transactionId);
    assert.ok(paid.data.paidAt);
    assert.equal(paid.sequence, 2);
    const ids = requests.map((request) => request.headers['webhook-id']);
    assert.equal(new Set(ids).size, 2, 'one id per event');
    assert.equal(requests[0]!.headers['content-type'], 'application/json');
    // A wrong secret does not verify.
    assert.throws(() => verified(requests[0]!, newSecret()));
    // The operator sees them delivered, with the attempt (recorded once the receiver has answered).
    const listed = await eventually(async () => {
      const page = await stack.operator(`/api/events?type=checkout.paid&limit=200`);
      const event = page.body.events?.find((item: { checkoutId: string }) => item.checkoutId === checkoutId);
      return event?.status === 'delivered' ? page : undefined;
    });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.endpoint, receiver.url);
    const summary = listed.body.events.find((event: { checkoutId: string }) => event.checkoutId === checkoutId);
    const detail = await stack.operator(`/api/events/${summary.id}`);
    assert.equal(detail.body.payload.type, 'checkout.paid');
    assert.equal(detail.body.attemptLog.length, 1);
    assert.equal(detail.body.attemptLog[0].statusCode, 200);
  });

  it('a failed payment sends payment.failed only; a bank step sends nothing', async () => {
    const { transactionId } = await paidPayment('FAILED');
    const [request] = await eventually(() => (eventsFor(transactionId).length ? eventsFor(transactionId) : undefined));
    const event = verified(request!, secret);
    assert.equal(event.type, 'payment.failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(eventsFor(transactionId).length, 1);
  });

  it('a receiver that fails is retried on schedule under the same id until it answers 2xx', async () => {
    failing = true;
    const { transactionId } = await paidPayment('COMPLETED');
    await eventually(() => (eventsFor(transactionId).length >= 6 ? true : undefined), 'retries');
    failing = false;
    const listed = await eventually(async () => {
      const page = await stack.operator('/api/events?limit=20');
      const mine = page.body.events.filter((event: { transactionId: string }) => event.transactionId === transactionId);
      return mine.length === 2 && mine.every((event: { status: string }) => event.status === 'delivered')
        ? mine
        : undefined;
    }, 'delivery after the receiver recovers');
    for (const summary of listed) {
      const detail = (await stack.operator(`/api/events/${summary.id}`)).body;
      const codes = detail.attemptLog.map((attempt: { statusCode: number }) => attempt.statusCode);
      assert.ok(codes.length >= 2, 'more than one attempt');
      assert.equal(codes.at(-1), 200);
      assert.ok(codes.slice(0, -1).every((code: number) => code === 503));
      const sameId = eventsFor(transactionId).filter((request) => request.headers['webhook-id'] === summary.id);
      assert.equal(sameId.length, codes.length, 'one request per recorded attempt, all under the event’s id');
    }
  });

  it('a checkout that expires unpaid sends checkout.expired', async () => {
    const now = Date.now();
    const checkoutId = `chk_${randomBytes(18).toString('base64url')}`;
    await stack.proxy.services.store.insertCheckout({
      checkoutId,
      amount: '9.00',
      currencyCode: 'EUR',
      reference: 'EXPIRES',
      metadata: null,
      createdAt: now - 120_000,
      expiresAt: now - 1_000,
      currentAttempt: null,
    });
    const [request] = await eventually(() => {
      const mine = receiver.received.filter((request) => request.body.includes(checkoutId));
      return mine.length ? mine : undefined;
    });
    const event = verified(request!, secret);
    assert.equal(event.type, 'checkout.expired');
    assert.equal(event.sequence, 1);
    assert.equal(event.data.state, 'expired');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.filter((request) => request.body.includes(checkoutId)).length, 1, 'once');
  });

  it('the operator routes: bearer required, clear 400s and 404s, never a 5xx on any input', async () => {
    assert.equal((await stack.browser('/api/events')).status, 401);
    assert.equal((await stack.operator('/api/events?status=lost')).status, 400);
    assert.equal((await stack.operator('/api/events?limit=0')).status, 400);
    assert.equal((await stack.operator('/api/events?cursor=nonsense')).status, 400);
    assert.equal((await stack.operator('/api/events/evt_unknown')).status, 404);
    assert.equal((await stack.operator('/api/events/evt_unknown/redeliver', { method: 'POST' })).status, 404);
    const bulk = await stack.operator('/api/events/redeliver', { body: { status: 'delivered', since: 'yesterday' } });
    assert.equal(bulk.status, 400);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.dictionary(fc.constantFrom('status', 'type', 'limit', 'cursor'), fc.string({ maxLength: 30 })),
        fc.jsonValue({ maxDepth: 3 }),
        async (id, query, body) => {
          const path = `/api/events/${encodeURIComponent(id) || 'x'}`;
          const answers = await Promise.all([
            stack.operator(`/api/events?${new URLSearchParams(query)}`),
            stack.operator(path),
            stack.operator(`${path}/redeliver`, { method: 'POST' }),
            stack.operator(`/api/events/endpoints/${encodeURIComponent(id) || 'x'}/enable`, { method: 'POST' }),
            stack.operator('/api/events/redeliver', {
              raw: JSON.stringify(body) ?? '',
              headers: { 'Content-Type': 'application/json' },
            }),
          ]);
          for (const answer of answers) assert.ok(answer.status < 500, `${answer.status} ${answer.text}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('no event secret in any log line or response', () => {
    const logs = stack.logs.join('\n');
    for (const value of [secret, nextSecret, secret.slice(6), nextSecret.slice(6)]) assert.ok(!logs.includes(value));
  });
});

describe('proxy: events and the receiver’s answers, as Standard Webhooks asks', () => {
  const secret = newSecret();
  /** How the receiver answers the events of a payment, by the reference in their body; 200 otherwise. */
  const answers = new Map<string, ScriptedAnswer | (() => ScriptedAnswer)>();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;

  before(async () => {
    receiver = await startReceiver({
      respond: (request) => {
        const reference = /"reference":"([^"]+)"/.exec(request.body)?.[1] ?? '';
        const answer = answers.get(reference);
        return (typeof answer === 'function' ? answer() : answer) ?? 200;
      },
    });
    // Retries within moments, but the real give-up horizon (three days): what a Retry-After asks is what shows.
    stack = await startStack({
      env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret },
      proxy: { eventRetrySchedule: { delay: () => 20, giveUpAfterMs: GIVE_UP_AFTER_MS }, eventPollMs: 50 },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  /** A payment of a checkout with this reference, made final: its events are on their way. */
  const finalPayment = async (reference: string, status: 'COMPLETED' | 'FAILED') => {
    const checkoutId = await stack.checkout({ reference });
    const { transactionId } = (await stack.pay(checkoutId)).body as { transactionId: string };
    await stack.control(`/payments/${transactionId}/outcome`, { status });
    return transactionId;
  };
  /** The operator's view of a payment's events (summaries), once there are `count` of them. */
  const eventsOf = (transactionId: string, count: number, accept: (event: Json) => boolean = () => true) =>
    eventually(async () => {
      const page = await stack.operator('/api/events?limit=200');
      const mine = page.body.events.filter((event: Json) => event.transactionId === transactionId);
      return mine.length === count && mine.every(accept) ? (mine as Json[]) : undefined;
    }, `${count} events of ${transactionId}`);
  const received = (eventId: string) =>
    receiver.received.filter((request) => request.headers['webhook-id'] === eventId);
  const endpoint = async () => (await stack.operator('/api/events?limit=1')).body.endpoints[0];

  it('a Retry-After on a 503 or a 429 is waited for (seconds or a date), up to an hour', async () => {
    const cases = [
      { reference: 'RETRY-AFTER-SECONDS', answer: { status: 503, headers: { 'Retry-After': '120' } }, wait: 120_000 },
      {
        reference: 'RETRY-AFTER-DATE',
        answer: () => ({ status: 429, headers: { 'Retry-After': new Date(Date.now() + 90_000).toUTCString() } }),
        wait: 89_000,
      },
      // A day is more than a receiver may park an event for: an hour.
      { reference: 'RETRY-AFTER-DAY', answer: { status: 503, headers: { 'Retry-After': '86400' } }, wait: 3_600_000 },
    ];
    for (const { reference, answer, wait } of cases) {
      answers.set(reference, answer);
      const transactionId = await finalPayment(reference, 'FAILED');
      const [event] = await eventsOf(transactionId, 1, (summary) => summary.attempts === 1);
      const detail = (await stack.operator(`/api/events/${event!.id}`)).body;
      assert.equal(detail.status, 'pending', reference);
      // At least the wait asked (capped), and not some other one: the next longer would be the cap's hour.
      const next = Date.parse(detail.nextAttemptAt) - Date.parse(detail.attemptLog[0].at);
      assert.ok(next >= wait && next < wait + 60_000, `${reference}: next attempt ${next} ms after the first`);
      assert.equal(received(event!.id).length, 1, `${reference}: sent once, not on the 20 ms schedule`);
    }
  });

  it('a receiver that answers in 12 s gets its event once: the timeout is 15 s', async () => {
    answers.set('SLOW-RECEIVER', { status: 200, delayMs: 12_000 });
    const transactionId = await finalPayment('SLOW-RECEIVER', 'FAILED');
    const [event] = await eventsOf(transactionId, 1);
    const delivered = await eventually(async () => {
      const detail = (await stack.operator(`/api/events/${event!.id}`)).body;
      return detail.status === 'delivered' ? detail : undefined;
    }, 'the slow delivery');
    assert.equal(delivered.attemptLog.length, 1);
    assert.equal(delivered.attemptLog[0].statusCode, 200);
    assert.ok(delivered.attemptLog[0].durationMs >= 12_000);
    assert.equal(received(event!.id).length, 1, 'one request: no attempt timed out and went again');
  });

  it('410 Gone is not retried; three in a row disable the endpoint, across a restart, until an operator enables it', async () => {
    const gone: ScriptedAnswer = { status: 410 };
    for (const reference of ['GONE-1', 'GONE-2', 'GONE-3']) answers.set(reference, gone);
    assert.equal((await endpoint()).enabled, true);
    const first = await finalPayment('GONE-1', 'COMPLETED');
    const given = await eventsOf(first, 2, (summary) => summary.status === 'failed');
    for (const event of given) {
      assert.equal(event.attempts, 1, `${event.type}: not tried again`);
      assert.match(event.lastError as string, /410 Gone/);
      assert.equal(received(event.id as string).length, 1);
    }
    assert.equal((await endpoint()).enabled, true, 'two in a row');
    const second = await finalPayment('GONE-2', 'FAILED');
    await eventsOf(second, 1, (summary) => summary.status === 'failed');
    const disabled = await eventually(async () => ((await endpoint()).enabled ? undefined : await endpoint()));
    assert.equal(disabled.url, receiver.url);
    assert.match(disabled.disabledReason, /410 Gone 3 times in a row/);
    assert.ok(Date.parse(disabled.disabledAt) <= Date.now());
    const health = (await stack.operator('/api/health')).body;
    assert.equal(health.status, 'degraded');
    assert.deepEqual(health.events.endpoints, [disabled]);

    // Events wait, pending and untried, while it is disabled: a restart keeps it so.
    const third = await finalPayment('GONE-3', 'COMPLETED');
    const waiting = await eventsOf(third, 2, (summary) => summary.status === 'pending');
    await stack.restart();
    assert.deepEqual(await endpoint(), disabled);
    await new Promise((resolve) => setTimeout(resolve, 500)); // ten polls of the outbox
    for (const event of waiting) {
      assert.equal((await stack.operator(`/api/events/${event.id}`)).body.attempts, 0);
      assert.equal(received(event.id as string).length, 0);
    }

    // The merchant's server wants events again; the operator enables the endpoint, and they go.
    answers.delete('GONE-3');
    assert.equal((await stack.operator('/api/events/endpoints/ep_unknown/enable', { method: 'POST' })).status, 404);
    const enabled = await stack.operator(`/api/events/endpoints/${disabled.id}/enable`, { method: 'POST' });
    assert.equal(enabled.status, 200);
    assert.deepEqual(enabled.body, { ...disabled, enabled: true, disabledAt: null, disabledReason: null });
    const sent = await eventsOf(third, 2, (summary) => summary.status === 'delivered');
    for (const event of sent) assert.equal(received(event.id as string).length, 1);
    assert.equal((await stack.operator('/api/health')).body.events.endpoints[0].enabled, true);
    // What the 410s failed stays failed, for the operator to redeliver if it should be.
    assert.ok((await eventsOf(first, 2)).every((event) => event.status === 'failed' && event.attempts === 1));
  });
});

describe('proxy: events given up, and replayed', () => {
  const secret = newSecret();
  let failing = true;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;

  before(async () => {
    receiver = await startReceiver({
      respond: (request) =>
        request.body.includes('PAST-HORIZON') ? { status: 503, headers: { 'Retry-After': '60' } } : failing ? 500 : 204,
    });
    // 3 days × 0.000002 ≈ 0.5 s: the schedule runs out in moments.
    stack = await startStack({
      env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret },
      proxy: { eventRetryScale: 0.000002, eventPollMs: 50 },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  /** A payment of a checkout that fails, and its event once given up. */
  const givenUp = async (reference = 'ORDER-1') => {
    const checkoutId = await stack.checkout({ reference });
    const { transactionId } = (await stack.pay(checkoutId)).body as { transactionId: string };
    await stack.control(`/payments/${transactionId}/outcome`, { status: 'FAILED' });
    return eventually(async () => {
      const page = await stack.operator('/api/events?status=failed');
      return page.body.events.find((event: { transactionId: string }) => event.transactionId === transactionId);
    }, 'the event to be given up');
  };

  it('is marked failed after its schedule, then redelivered in bulk and by id, under its own id', async () => {
    const failed = await givenUp();
    assert.match(failed.lastError, /HTTP 500/);
    const attemptsBefore = receiver.received.length;
    failing = false;
    const bulk = await stack.operator('/api/events/redeliver', {
      body: { status: 'failed', since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    assert.deepEqual(bulk.body, { redelivered: 1 });
    await eventually(async () =>
      (await stack.operator(`/api/events/${failed.id}`)).body.status === 'delivered' ? true : undefined,
    );
    const again = await stack.operator(`/api/events/${failed.id}/redeliver`, { method: 'POST' });
    assert.equal(again.status, 202);
    assert.equal(again.body.status, 'pending');
    await eventually(async () => {
      const detail = (await stack.operator(`/api/events/${failed.id}`)).body;
      return detail.status === 'delivered' && detail.attemptLog.at(-1).statusCode === 204 ? detail : undefined;
    });
    const replays = receiver.received.slice(attemptsBefore);
    assert.equal(replays.length, 2);
    assert.ok(replays.every((request) => request.headers['webhook-id'] === failed.id));
  });

  it('a Retry-After past the give-up horizon gives the event up at once: the three days still hold', async () => {
    const failed = await givenUp('PAST-HORIZON');
    assert.equal(failed.attempts, 1, 'a minute is past the horizon: no second attempt');
    assert.match(failed.lastError, /HTTP 503/);
    assert.equal(receiver.received.filter((request) => request.headers['webhook-id'] === failed.id).length, 1);
  });
});

describe('proxy: events settings', () => {
  const base = proxyEnvFor(
    {
      pay: 'http://127.0.0.1:1',
      clientSecret: 'c'.repeat(32),
      orders: 'http://127.0.0.1:1',
      ordersApiKey: 'o'.repeat(32),
      reforge: 'http://127.0.0.1:1',
      origin: 'http://127.0.0.1:1',
    } as never,
    ':memory:',
  );
  const failure = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return undefined;
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.message;
    }
  };

  it('stops the proxy at start with a message naming the setting', () => {
    assert.equal(loadConfig(base).events, null);
    assert.match(failure({ KASSA_EVENTS_URL: 'https://shop.example/kassa' })!, /^KASSA_EVENTS_SECRET: is required/);
    assert.match(failure({ KASSA_EVENTS_SECRET: newSecret() })!, /^KASSA_EVENTS_URL: is required/);
    assert.match(
      failure({ KASSA_EVENTS_URL: 'http://shop.example/k', KASSA_EVENTS_SECRET: newSecret() })!,
      /^KASSA_EVENTS_URL: must be an absolute https URL/,
    );
    assert.match(
      failure({ KASSA_EVENTS_URL: 'https://u:p@shop.example/k', KASSA_EVENTS_SECRET: newSecret() })!,
      /^KASSA_EVENTS_URL/,
    );
    const short = `whsec_${randomBytes(16).toString('base64')}`;
    assert.match(
      failure({ KASSA_EVENTS_URL: 'https://shop.example/k', KASSA_EVENTS_SECRET: short })!,
      /^KASSA_EVENTS_SECRET: must be whsec_/,
    );
    assert.match(
      failure({ KASSA_EVENTS_URL: 'https://shop.example/k', KASSA_EVENTS_SECRET: 'whsec_!!!!' })!,
      /^KASSA_EVENTS_SECRET/,
    );
    const secret = newSecret();
    assert.match(
      failure({
        KASSA_EVENTS_URL: 'https://shop.example/k',
        KASSA_EVENTS_SECRET: secret,
        KASSA_EVENTS_SECRET_NEXT: 'whsec_x',
      })!,
      /^KASSA_EVENTS_SECRET_NEXT/,
    );
    const ok = loadConfig({ ...base, KASSA_EVENTS_URL: 'https://shop.example/k', KASSA_EVENTS_SECRET: secret });
    assert.deepEqual(ok.events, { url: 'https://shop.example/k', secrets: [secret] });
  });
});

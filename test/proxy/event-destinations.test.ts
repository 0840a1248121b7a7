import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { kassaEventSchema } from '../../schemas/events.ts';
import type { Json } from '../support/http.ts';
import { as } from '../support/operators.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import { startReceiver, type ReceivedRequest } from '../support/webhook-receiver.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const headersOf = (request: ReceivedRequest) =>
  Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
  );
/** Verifies as a merchant's server would, with the standardwebhooks library. */
const verify = (request: ReceivedRequest, secret: string) =>
  new Webhook(secret).verify(request.body, headersOf(request)) as { type: string };
const idsOf = (requests: readonly ReceivedRequest[]) =>
  requests.map((request) => String(request.headers['webhook-id']));
/** What a receiver took (2xx), in the order it came. */
const unique = (ids: readonly string[]) => ids.filter((id, index) => ids.indexOf(id) === index);

/** A receiver whose answers are held until `release()`: a destination that is slow for as long as a test says. */
async function heldReceiver() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const receiver = await startReceiver({ gate: () => released });
  return Object.assign(receiver, { release });
}

describe('proxy: events to several destinations, each delivered on its own', () => {
  let stack: Stack;
  const receivers: Receiver[] = [];
  const receiver = async (options: Parameters<typeof startReceiver>[0] = {}) => {
    const started = await startReceiver(options);
    receivers.push(started);
    return started;
  };

  before(async () => {
    stack = await startStack({ proxy: { eventRetryScale: 0.0005, eventPollMs: 50, eventSweepMs: 100 } });
  });
  after(async () => {
    await stack.stop();
    await Promise.all(receivers.map((started) => started.close()));
  });

  const addDestination = async (body: Json) => {
    const created = await stack.operator('/api/event-destinations', { body });
    assert.equal(created.status, 201, created.text);
    return created.body as { destination: { id: string }; secret: string };
  };
  /** A completed payment: payment.completed and checkout.paid, for every destination that takes them. */
  const paid = async () => {
    const checkoutId = await stack.checkout();
    const payment = (await stack.pay(checkoutId)).body as { transactionId: string };
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    return payment.transactionId;
  };
  const log = async (id: string, query = '') =>
    (await stack.operator(`/api/event-destinations/${id}/deliveries?limit=200${query}`)).body as {
      deliveries: Array<{ eventId: string; status: string; attempts: number; lastStatusCode: number | null }>;
    };
  const removeAll = async (ids: string[]) => {
    for (const id of ids)
      assert.equal((await stack.operator(`/api/event-destinations/${id}`, { method: 'DELETE' })).status, 204);
  };

  it('with no destination and no KASSA_EVENTS_URL nothing is written nor waits; a destination added later gets only the events after it', async () => {
    const events = async (query = '') =>
      ((await stack.operator(`/api/events?limit=200${query}`)).body.events as Array<{ transactionId: string }>).map(
        (event) => event.transactionId,
      );
    const completed = async () => {
      const transactionId = await paid();
      await eventually(() => stack.changedBy(transactionId, 'COMPLETED'), 'the payment’s change, with its events');
      return transactionId;
    };
    const before = await completed();
    assert.deepEqual(await events(), [], 'as before there were destinations: no event is written for no one');
    // The outbox's gauges are KASSA_EVENTS_URL's, as before: none without it (docs/operations.md).
    assert.doesNotMatch((await stack.operator('/metrics')).text, /kassa_events_outbox_depth/);
    const target = await receiver();
    const d = await addDestination({ url: target.url });
    const later = await completed();
    const received = await target.waitFor(2);
    assert.ok(
      received.every((request) => request.body.includes(later) && !request.body.includes(before)),
      'only the events after it was added',
    );
    await eventually(async () =>
      (await log(d.destination.id)).deliveries.every((entry) => entry.status === 'delivered') ? true : undefined,
    );
    assert.deepEqual(await events('&status=pending'), [], 'none pending for KASSA_EVENTS_URL, which is not set');
    assert.deepEqual(await events(), [later, later], 'the destination’s events, in the outbox’s list');
    await removeAll([d.destination.id]);
  });

  it('three receivers, one failing then recovering, one stalled: the healthy one gets every event meanwhile, the others their backlog in order, none lost', async () => {
    let failing = true;
    const healthy = await receiver();
    const flaky = await receiver({ respond: () => (failing ? 503 : 200) });
    const slow = await heldReceiver();
    receivers.push(slow);
    const [a, b, c] = [
      await addDestination({ url: healthy.url, description: 'fulfilment' }),
      await addDestination({ url: flaky.url, description: 'accounting' }),
      await addDestination({ url: slow.url, description: 'analytics' }),
    ];
    for (let i = 0; i < 4; i++) await paid();
    // Every event reaches the healthy receiver while the failing one refuses and the slow one holds its first.
    const delivered = await eventually(async () => {
      const entries = (await log(a.destination.id)).deliveries;
      return entries.length === 8 && entries.every((entry) => entry.status === 'delivered') ? entries : undefined;
    });
    const order = delivered.map((entry) => entry.eventId).reverse();
    assert.deepEqual(unique(idsOf(healthy.received)), order, 'the healthy one, in the order the events were written');
    await slow.waitFor(1);
    await flaky.waitFor(1);
    assert.equal(slow.received.length, 1, 'the slow one is still on its first event');
    assert.deepEqual(unique(idsOf(flaky.received)), [order[0]], 'the failing one retries its head, nothing after it');
    healthy.received.forEach((request) => verify(request, a.secret));
    // Recovery: the failing one gets its backlog, in order; the slow one, once let go, too.
    failing = false;
    slow.release();
    await eventually(async () =>
      (await log(b.destination.id)).deliveries.every((entry) => entry.status === 'delivered') &&
      (await log(c.destination.id)).deliveries.every((entry) => entry.status === 'delivered')
        ? true
        : undefined,
    );
    const tookFlaky = flaky.received.filter((request) => verify(request, b.secret));
    assert.deepEqual(unique(idsOf(tookFlaky)), order, 'the failing one, its backlog in order');
    assert.deepEqual(idsOf(slow.received), order, 'the slow one, in order, each once');
    slow.received.forEach((request) => verify(request, c.secret));
    // Nothing lost: every event of the outbox reached each of the three.
    for (const request of healthy.received) kassaEventSchema.parse(JSON.parse(request.body));
    const listed = (await stack.operator('/api/event-destinations')).body.destinations as Array<{
      id: string;
      pending: number;
    }>;
    assert.deepEqual(
      listed.filter((entry) => [a, b, c].some((d) => d.destination.id === entry.id)).map((entry) => entry.pending),
      [0, 0, 0],
    );
    await removeAll([a, b, c].map((d) => d.destination.id));
  });

  it('a destination receives only the event types it takes', async () => {
    const all = await receiver();
    const paidOnly = await receiver();
    const [everything, filtered] = [
      await addDestination({ url: all.url }),
      await addDestination({ url: paidOnly.url, enabledEvents: ['checkout.paid'] }),
    ];
    const transactionId = await paid();
    await all.waitFor(2);
    await eventually(async () => ((await log(filtered.destination.id)).deliveries.length === 1 ? true : undefined));
    await paidOnly.waitFor(1);
    const types = (requests: ReceivedRequest[], secret: string) =>
      requests.map((request) => verify(request, secret).type).sort();
    assert.deepEqual(types(all.received, everything.secret), ['checkout.paid', 'payment.completed']);
    assert.deepEqual(types(paidOnly.received, filtered.secret), ['checkout.paid']);
    assert.ok(paidOnly.received[0]!.body.includes(transactionId));
    await removeAll([everything.destination.id, filtered.destination.id]);
  });

  it('a disabled destination keeps its events and gets them in order when enabled; skipping drops them, audited', async () => {
    const witness = await receiver();
    const paused = await receiver();
    const skipped = await receiver();
    const w = await addDestination({ url: witness.url });
    const p = await addDestination({ url: paused.url });
    const s = await addDestination({ url: skipped.url, enabled: false });
    const disabled = await stack.operator(`/api/event-destinations/${p.destination.id}`, {
      method: 'PATCH',
      body: { enabled: false },
    });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.enabled, false);
    assert.equal(disabled.body.disabledReason, 'Disabled by Test Admin');
    await paid();
    await paid();
    await witness.waitFor(4);
    await eventually(async () =>
      (await log(p.destination.id, '&status=pending')).deliveries.length === 4 ? true : undefined,
    );
    assert.equal(paused.received.length, 0, 'a disabled destination is sent nothing');
    const order = idsOf(witness.received);
    const listed = await stack.operator(`/api/event-destinations/${p.destination.id}`);
    assert.equal(listed.body.pending, 4);
    // Skipping the other's backlog: nothing of it is sent once it is enabled.
    const skip = await stack.operator(`/api/event-destinations/${s.destination.id}/skip`, { method: 'POST' });
    assert.deepEqual(skip.body, { skipped: 4 });
    for (const d of [p, s])
      assert.equal(
        (
          await stack.operator(`/api/event-destinations/${d.destination.id}`, {
            method: 'PATCH',
            body: { enabled: true },
          })
        ).status,
        200,
      );
    await paused.waitFor(4);
    assert.deepEqual(idsOf(paused.received), order, 'the backlog, in order');
    // The skipped one gets the next event only.
    const next = await paid();
    await skipped.waitFor(2);
    assert.ok(
      skipped.received.every((request) => request.body.includes(next)),
      'only events after the skip',
    );
    // The log says so once the receiver's answers are recorded.
    const statuses = await eventually(async () => {
      const now = (await log(s.destination.id)).deliveries.map((entry) => entry.status).sort();
      return now.includes('pending') ? undefined : now;
    });
    assert.deepEqual(statuses, ['delivered', 'delivered', 'skipped', 'skipped', 'skipped', 'skipped']);
    const audit = await stack.operator('/api/audit?action=event_destination&limit=200');
    const actions = (audit.body.records as Array<{ action: string; target: { id: string } | null; after: unknown }>)
      .filter((record) => [p, s].some((d) => d.destination.id === record.target?.id))
      .map((record) => record.action)
      .sort();
    assert.deepEqual(actions, [
      'event_destination.created',
      'event_destination.created',
      'event_destination.disabled',
      'event_destination.enabled',
      'event_destination.enabled',
      'event_destination.skipped',
    ]);
    await removeAll([w, p, s].map((d) => d.destination.id));
  });

  it('a test event is signed with the destination’s secret; a rotated secret signs beside the old one until it expires', async () => {
    const target = await receiver();
    const d = await addDestination({ url: target.url });
    const tested = await stack.operator(`/api/event-destinations/${d.destination.id}/test`, { method: 'POST' });
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.statusCode, 200);
    const [ping] = await target.waitFor(1);
    assert.equal(verify(ping!, d.secret).type, 'kassa.test');
    assert.equal(ping!.headers['webhook-id'], tested.body.eventId);
    // Rotation with an overlap: both secrets verify each event, and the answer shows the new one once.
    const rotated = await stack.operator(`/api/event-destinations/${d.destination.id}/rotate-secret`, {
      body: { expiresInSeconds: 3600 },
    });
    assert.equal(rotated.status, 200, rotated.text);
    const newSecret = rotated.body.secret as string;
    assert.notEqual(newSecret, d.secret);
    assert.ok(rotated.body.destination.previousSecretExpiresAt);
    await paid();
    const during = (await target.waitFor(3)).slice(1);
    for (const request of during) {
      assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
      verify(request, d.secret);
      verify(request, newSecret);
    }
    // Ending the overlap now: only the newest secret signs.
    const again = await stack.operator(`/api/event-destinations/${d.destination.id}/rotate-secret`, {
      body: { expiresInSeconds: 0 },
    });
    await paid();
    const afterwards = (await target.waitFor(5)).slice(3);
    for (const request of afterwards) {
      verify(request, again.body.secret as string);
      assert.throws(() => verify(request, newSecret));
      assert.throws(() => verify(request, d.secret));
    }
    const listed = JSON.stringify((await stack.operator('/api/event-destinations')).body);
    assert.ok(
      ![d.secret, newSecret, again.body.secret as string].some((secret) => listed.includes(secret)),
      'secrets shown once',
    );
    await removeAll([d.destination.id]);
  });

  it('viewers read destinations and their logs; managing them needs destinations:manage', async () => {
    const viewer = await stack.addOperator('viewer');
    const asViewer = as(stack.proxy.origin, viewer);
    assert.equal((await asViewer('/api/event-destinations')).status, 200);
    const refused = await asViewer('/api/event-destinations', { body: { url: 'https://hooks.example/kassa' } });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error as string, /destinations:manage/);
    assert.equal((await stack.operator('/api/event-destinations/dest_unknown')).status, 404);
  });

  it('any body of the create and change routes is a 201/200 or a 400 naming the problem, never a 5xx', async () => {
    const created: string[] = [];
    const field = fc.oneof(
      fc.constantFrom('https://hooks.example/a', 'http://127.0.0.1:9/x', 'http://10.0.0.1/x', 'ftp://x', ''),
      fc.webUrl(),
      fc.string(),
    );
    const body = fc.record(
      {
        url: field,
        description: fc.oneof(fc.string({ maxLength: 250 }), fc.integer()),
        enabledEvents: fc.oneof(
          fc.array(fc.constantFrom('*', 'checkout.paid', 'payment.failed', 'nope')),
          fc.constant('*'),
        ),
        enabled: fc.oneof(fc.boolean(), fc.string()),
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const answer = await stack.operator('/api/event-destinations', { body: sent });
        assert.ok([201, 400].includes(answer.status), `${answer.status} ${answer.text}`);
        if (answer.status === 400) assert.equal(typeof answer.body.error, 'string');
        else created.push((answer.body.destination as { id: string }).id);
      }),
      { numRuns: 60 },
    );
    await removeAll(created);
  });
});

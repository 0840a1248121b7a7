import { addOperatorByCommand } from '../support/operators.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { FLEET_STORES, spawnInstance, startFleet } from '../support/fleet.ts';
import { freePort } from '../support/free-port.ts';
import { http } from '../support/http.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { eventually, proxyEnvFor } from '../support/stack.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('proxy events: nothing lost across a crash', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'kassa-events-'));
  });
  after(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The stores a single proxy can keep its outbox in: its SQLite file, or a PostgreSQL database. */
  const stores = [
    { name: 'SQLite', settings: async (): Promise<Record<string, string>> => ({}) },
    {
      name: 'PostgreSQL',
      settings: async () => ({ KASSA_DATABASE_URL: await (await sharedPostgres()).createDatabase() }),
    },
  ];
  for (const { name, settings } of stores)
    it(`${name}: kill -9 after the status change, before any delivery: the restarted proxy delivers the events`, async () => {
      // An endpoint where nothing answers yet: the events are written, and wait in the outbox.
      const closedPort = await freePort();
      const secret = newSecret();
      const env = {
        ...proxyEnvFor(sandbox, join(dir, `${name}.db`)),
        ...(await settings()),
        KASSA_EVENTS_SECRET: secret,
        KASSA_EVENTS_URL: `http://127.0.0.1:${closedPort}/hook`,
        KASSA_RATE_LIMIT: '0',
        KASSA_CREATE_RATE_LIMIT: '0',
      };
      const lines: string[] = [];
      const first = await spawnInstance(env, lines);
      const hook = `${first.origin}/hooks/payments/${env.KASSA_WEBHOOK_SECRET}`;
      await http(`${sandbox.control}/keys/${sandbox.keyId}`, { method: 'PATCH', body: { webhookUrl: hook } });
      const checkout = await http(`${first.origin}/api/checkouts`, {
        body: { amount: '12.00', currencyCode: 'EUR', reference: 'CRASH-1' },
        headers: { Authorization: `Bearer ${env.KASSA_MERCHANT_KEY}` },
      });
      const payment = await http(`${first.origin}/api/payments`, {
        body: { checkoutId: checkout.body.checkoutId },
        headers: { Origin: 'http://127.0.0.1:9', 'Idempotency-Key': `crash-${randomBytes(6).toString('hex')}` },
      });
      const { transactionId } = payment.body as { transactionId: string };
      await http(`${sandbox.control}/payments/${transactionId}/outcome`, {
        method: 'POST',
        body: { status: 'COMPLETED' },
      });
      // A viewer made by `kassa-proxy operators add --token` beside the running process (SQLite's file included).
      const operator = (await addOperatorByCommand(env, 'viewer')).headers;
      await eventually(async () => {
        // Each tried once against the closed endpoint: due again 5 s later, whoever runs then.
        const page = await http(`${first.origin}/api/events`, { headers: operator });
        const events = page.body.events as Array<{ status: string; attempts: number }>;
        return events.filter((event) => event.status === 'pending' && event.attempts >= 1).length === 2
          ? true
          : undefined;
      }, 'both events in the outbox, tried once');
      await first.crash!();

      // The merchant's endpoint is up now; the proxy comes back on the same database.
      const receiver = await startReceiver();
      const second = await spawnInstance({ ...env, KASSA_EVENTS_URL: receiver.url }, lines);
      try {
        // Due again 5 s after the failed attempt, or 30 s after a second one on a slow machine.
        const delivered = await receiver.waitFor(2);
        const types = delivered.map((request) => {
          const headers = Object.fromEntries(
            ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
              name,
              String(request.headers[name]),
            ]),
          );
          return (new Webhook(secret).verify(request.body, headers) as { type: string }).type;
        });
        assert.deepEqual(types.sort(), ['checkout.paid', 'payment.completed']);
      } finally {
        await second.stop();
        await receiver.close();
      }
    });
});

for (const { store, name } of FLEET_STORES)
  describe(`proxy events on a fleet (${name})`, () => {
    it('three instances deliver each attempt once, to a receiver failing half its answers', async () => {
      let answers = 0;
      const receiver = await startReceiver({ respond: () => (answers++ % 2 === 0 ? 500 : 200) });
      const fleet = await startFleet({
        instances: 3,
        env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: newSecret() },
        proxy: { eventRetryScale: 0.0002, eventPollMs: 20 },
        store,
      });
      try {
        const payments = 20;
        for (let i = 0; i < payments; i++) {
          const checkoutId = await fleet.checkout(i % 3);
          const { transactionId } = (await fleet.pay(i % 3, checkoutId)).body as { transactionId: string };
          await fleet.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
        }
        const operator = fleet.admin.headers;
        const events = await eventually(async () => {
          const page = await http(`${fleet.origin(1)}/api/events?limit=200`, { headers: operator });
          const list = page.body.events as Array<{ id: string; status: string; attempts: number }>;
          return list.length === 2 * payments && list.every((event) => event.status === 'delivered') ? list : undefined;
        }, 'every event delivered');
        for (const event of events) {
          const requests = receiver.received.filter((request) => request.headers['webhook-id'] === event.id);
          assert.equal(requests.length, event.attempts, `${event.id}: one request per attempt`);
        }
        const byInstance = fleet.logs.map((lines) => lines.filter((line) => line.includes('"event delivered"')).length);
        assert.ok(byInstance.filter((count) => count > 0).length >= 2, `deliveries spread: ${byInstance.join(', ')}`);
      } finally {
        await fleet.stop();
        await receiver.close();
      }
    });
  });

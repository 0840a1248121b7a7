import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { startFakePay, type Misbehaviour } from '../support/fake-pay.ts';
import { spawnInstance } from '../support/fleet.ts';
import { http } from '../support/http.ts';
import { eventually, proxyEnvFor, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { PATIENCE_MS } from '../support/patience.ts';

/** The deadline of every upstream call in these stacks: a second, so that waiting it out is quick. */
const DEADLINE_MS = 1_000;

/** A payment service on loopback that misbehaves on demand, in front of the emulator, and a proxy on it. */
async function misbehavingStack(sandbox: Sandbox, env: Record<string, string> = {}) {
  const fake = await startFakePay(sandbox.pay);
  const stack = await startStack({
    reuseSandbox: sandbox,
    env: { KASSA_PAY_BASE_URL: fake.url, KASSA_UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS), ...env },
  });
  return {
    fake,
    stack,
    stop: async () => {
      await stack.stop();
      await fake.close();
    },
  };
}

const logged = (stack: Stack, text: string) => stack.logs.filter((line) => line.includes(text));

/** kassa_upstream_mismatch_total for one service and field, from /metrics. */
async function mismatches(stack: Stack, field: string, service = 'pay'): Promise<number> {
  const text = (await stack.operator('/metrics')).text;
  const line = text
    .split('\n')
    .find((row) => row.startsWith(`kassa_upstream_mismatch_total{service="${service}",field="${field}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('proxy: a payment service that stalls or trickles its answers', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
  });
  after(() => sandbox.stop());

  for (const misbehaviour of [{ kind: 'stall' }, { kind: 'trickle', everyMs: 100 }] satisfies Misbehaviour[]) {
    // The service never finishes its answer, so any answer at all is the proxy's own deadline at work
    // (the log says so); a proxy without one would never answer, and the request would give up after PATIENCE_MS.
    it(`a token answer that ${misbehaviour.kind}s: payments and /readyz answer all the same, no orphan is claimed, and the next exchange works once the service recovers`, async () => {
      const { fake, stack, stop } = await misbehavingStack(sandbox);
      try {
        const checkouts = await Promise.all([1, 2, 3].map(() => stack.checkout()));
        fake.misbehave({ path: '/v1/auth/token', misbehaviour });
        const [payments, ready] = await Promise.all([
          Promise.all(checkouts.map((checkoutId) => stack.pay(checkoutId))),
          http(`${stack.proxy.origin}/readyz`),
        ]);
        for (const answer of payments) {
          assert.equal(answer.status, 502, answer.text);
          assert.equal(answer.body.error, 'The bank payment service is not answering. Please try again.');
          assert.ok(Number(answer.headers.get('retry-after')) > 0);
        }
        assert.equal(ready.status, 503);
        assert.equal(ready.body.reason, 'upstream_unreachable');
        const failures = logged(stack, 'payment initiation failed');
        assert.equal(failures.length, 3);
        assert.ok(
          failures.every((line) => !line.includes('orphanPossible')),
          'no initiate was sent, so no orphan is possible',
        );
        assert.ok(logged(stack, `did not finish its answer within ${DEADLINE_MS} ms`).length > 0, 'the log says why');

        fake.recover();
        const paid = await stack.pay(checkouts[0]!);
        assert.equal(paid.status, 201, paid.text);
        assert.equal((await http(`${stack.proxy.origin}/readyz`)).status, 200);
      } finally {
        await stop();
      }
    });
  }

  it('an initiate answer that stalls: the customer hears all the same, and the orphan that may exist is logged', async () => {
    const { fake, stack, stop } = await misbehavingStack(sandbox);
    try {
      const checkoutId = await stack.checkout();
      fake.misbehave({ path: '/v1/payments/initiate', misbehaviour: { kind: 'stall' } });
      const answer = await stack.pay(checkoutId, 'stalled-initiate');
      assert.equal(answer.status, 502, answer.text);
      assert.ok(
        logged(stack, `did not finish its answer within ${DEADLINE_MS} ms`).length > 0,
        'the deadline ended it',
      );
      const failure = logged(stack, 'payment initiation failed');
      assert.equal(failure.length, 1);
      assert.match(failure[0]!, /"orphanPossible":true/, 'the initiate left Kassa: a payment may exist upstream');
      fake.recover();
      assert.equal((await stack.pay(checkoutId, 'stalled-initiate')).status, 201);
    } finally {
      await stop();
    }
  });

  it('a status read that stalls does not hold the payment: after the deadline, the next reason to read gets the truth', async () => {
    const { fake, stack, stop } = await misbehavingStack(sandbox);
    try {
      const payment = (await stack.pay(await stack.checkout())).body;
      fake.misbehave({
        path: `/v1/payments/${payment.transactionId}`,
        times: 1,
        misbehaviour: { kind: 'stall' },
      });
      // The bank settles: its webhook makes the proxy read, and that read stalls.
      await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      await eventually(() => (fake.stats.spoiled === 1 ? true : undefined), 'the read to stall');
      await eventually(
        () => logged(stack, `did not finish its answer within ${DEADLINE_MS} ms`).length || undefined,
        'the stalled read to be given up at its deadline',
      );
      // The service recovered meanwhile, and says so again.
      await http(stack.webhookUrl(), {
        body: { event: 'payment.status_updated', transactionId: payment.transactionId, status: 'COMPLETED' },
      });
      const status = await eventually(async () => {
        const view = (await stack.browser(`/api/payments/status/${payment.statusToken}`)).body;
        return view.status === 'COMPLETED' ? view.status : undefined;
      }, 'the payment to be read again');
      assert.equal(status, 'COMPLETED');
    } finally {
      await stop();
    }
  });

  it('a webhook is answered at once: while the read it causes still waits for the payment service', async () => {
    // A deadline longer than any wait here: were the webhook answered only after its read, it would wait on the held read.
    const { fake, stack, stop } = await misbehavingStack(sandbox, { KASSA_UPSTREAM_TIMEOUT_MS: String(PATIENCE_MS) });
    try {
      const payment = (await stack.pay(await stack.checkout())).body;
      fake.misbehave({ path: `/v1/payments/${payment.transactionId}`, times: 1, misbehaviour: { kind: 'hold' } });
      await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      const [delivery] = await eventually(async () => {
        const deliveries = (await stack.control(`/webhooks?transactionId=${payment.transactionId}`)).body as Array<{
          status: number | null;
        }>;
        return deliveries.length ? deliveries : undefined;
      }, 'the webhook to be answered');
      assert.equal(delivery!.status, 200);
      assert.equal(fake.holding, 1, 'answered while its read is still held at the payment service');
      assert.equal((await stack.browser(`/api/payments/status/${payment.statusToken}`)).body.status, 'PENDING');
      fake.release();
      await eventually(
        async () =>
          (await stack.browser(`/api/payments/status/${payment.statusToken}`)).body.status === 'COMPLETED' || undefined,
        'the read to bring the completion',
      );
    } finally {
      await stop();
    }
  });
});

describe('proxy: a payment service that answers about another payment', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
  });
  after(() => sandbox.stop());

  for (const [field, misbehaviour] of [
    ['transactionId', (other: string) => ({ kind: 'swap', path: `/v1/payments/${other}` })],
    ['amount', () => ({ kind: 'rewrite', change: (body) => ({ ...body, amount: 1, status: 'COMPLETED' }) })],
  ] satisfies Array<[string, (other: string) => Misbehaviour]>) {
    it(`a record whose ${field} is not the payment's changes nothing: no paid checkout, no event, an error and a count`, async () => {
      const receiver = await startReceiver();
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const { fake, stack, stop } = await misbehavingStack(sandbox, {
        KASSA_EVENTS_URL: receiver.url,
        KASSA_EVENTS_SECRET: secret,
      });
      try {
        const checkoutId = await stack.checkout();
        const mine = (await stack.pay(checkoutId)).body;
        // Another payment of the shop, completed: its record is what the service answers with.
        const other = (await stack.pay(await stack.checkout())).body;
        await stack.control(`/payments/${other.transactionId}/outcome`, { status: 'COMPLETED' });
        await eventually(
          async () =>
            (await stack.browser(`/api/payments/status/${other.statusToken}`)).body.status === 'COMPLETED'
              ? true
              : undefined,
          'the other payment to complete',
        );
        fake.misbehave({ path: `/v1/payments/${mine.transactionId}`, misbehaviour: misbehaviour(other.transactionId) });
        await http(stack.webhookUrl(), {
          body: { event: 'payment.status_updated', transactionId: mine.transactionId, status: 'COMPLETED' },
        });
        await eventually(() => (fake.stats.spoiled === 1 ? true : undefined), 'the read');
        // The read's answer is refused (an error logged): whatever it was going to change has been decided.
        await eventually(
          () => logged(stack, 'upstream answer is not about what was asked').length || undefined,
          'the answer to be refused',
        );
        assert.equal((await stack.browser(`/api/payments/status/${mine.statusToken}`)).body.status, 'PENDING');
        assert.equal((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state, 'pending');
        assert.equal(await mismatches(stack, field), 1);
        const errors = logged(stack, 'upstream answer is not about what was asked');
        assert.equal(errors.length, 1);
        assert.match(errors[0]!, /"level":"error"/);
        assert.match(errors[0]!, new RegExp(`"field":"${field}"`));

        // The truth still gets through once the service answers about the right payment.
        fake.recover();
        await stack.control(`/payments/${mine.transactionId}/outcome`, { status: 'COMPLETED' });
        await eventually(
          async () => ((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state === 'paid' ? true : undefined),
          'the checkout to be paid for real',
        );
        const paidEvents = async () =>
          receiver.received.filter((request) => {
            const event = JSON.parse(request.body) as { type: string; data: { checkoutId?: string } };
            return event.type === 'checkout.paid' && event.data.checkoutId === checkoutId;
          });
        await eventually(async () => ((await paidEvents()).length > 0 ? true : undefined), 'checkout.paid');
        assert.equal((await paidEvents()).length, 1, 'one checkout.paid, for the real completion');
        assert.equal(await mismatches(stack, field), 1);
      } finally {
        await stop();
        await receiver.close();
      }
    });
  }
});

describe('proxy: an order service that answers about another order', () => {
  it('an order read answered with another order is refused: 502, an error and a count', async () => {
    const sandbox = await startSandbox({ settlementDelayMs: 0 });
    const fake = await startFakePay(sandbox.orders);
    const stack = await startStack({ reuseSandbox: sandbox, env: { KASSA_ORDERS_BASE_URL: fake.url } });
    try {
      const order = (customerOrder: string) => ({
        customerName: 'Ada',
        chainId: 31337,
        amount: '10',
        mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        customerOrder,
        stableCoin: 'eUSD',
      });
      const create = async (customerOrder: string) =>
        (await stack.approved(stack.operator('/api/orders', { body: order(customerOrder) }))).body.result
          .orderId as string;
      const mine = await create('mismatch-1');
      const other = await create('mismatch-2');
      fake.misbehave({ path: `/orders/${mine}`, misbehaviour: { kind: 'swap', path: `/orders/${other}` } });
      const read = await stack.operator(`/api/orders/${mine}`);
      assert.equal(read.status, 502, read.text);
      assert.match(read.body.error, /does not match: orderId/);
      assert.equal(await mismatches(stack, 'orderId', 'orders'), 1);
      assert.equal(logged(stack, 'upstream answer is not about what was asked').length, 1);
      fake.recover();
      assert.equal((await stack.operator(`/api/orders/${mine}`)).body.orderId, mine);
    } finally {
      await stack.stop();
      await fake.close();
      await sandbox.stop();
    }
  });
});

describe('proxy: a payment service that answers with 50 MB', () => {
  it('ten 50 MB answers are refused past 1 MB each: the memory of the proxy process stays flat, and payments go through', async () => {
    const sandbox = await startSandbox({ settlementDelayMs: 0 });
    const fake = await startFakePay(sandbox.pay);
    const dir = mkdtempSync(join(tmpdir(), 'kassa-oversize-'));
    const env = {
      ...proxyEnvFor(sandbox, join(dir, 'kassa.db')),
      KASSA_PAY_BASE_URL: fake.url,
      KASSA_RATE_LIMIT: '0',
      KASSA_CREATE_RATE_LIMIT: '0',
    };
    const lines: string[] = [];
    const proxy = await spawnInstance(env, lines);
    const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proxy.pid}/status`, 'utf8'))![1]) * 1024;
    try {
      const merchant = { Authorization: `Bearer ${env.KASSA_MERCHANT_KEY}` };
      const checkouts = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const made = await http(`${proxy.origin}/api/checkouts`, {
            body: { amount: '5.00', currencyCode: 'EUR', reference: 'BIG-1' },
            headers: merchant,
          });
          return made.body.checkoutId as string;
        }),
      );
      // A token first, so that the ten answers are the ten initiates'.
      assert.equal((await http(`${proxy.origin}/readyz`)).status, 200);
      const before = peak();
      fake.misbehave({ path: '/v1/payments/initiate', times: 10, misbehaviour: { kind: 'oversize', bytes: 50e6 } });
      const answers = await Promise.all(
        checkouts.map((checkoutId, i) =>
          http(`${proxy.origin}/api/payments`, {
            body: { checkoutId },
            headers: { Origin: SHOP_ORIGIN, 'Idempotency-Key': `oversize-${i}-${randomBytes(4).toString('hex')}` },
          }),
        ),
      );
      const grown = peak() - before;
      assert.equal(fake.stats.spoiled, 10);
      // Each initiate is tried again after its oversized answer, and the next answer is a normal one.
      assert.deepEqual(
        answers.map((answer) => answer.status),
        Array.from({ length: 10 }, () => 201),
      );
      // Ten creations alone grow it by some 20 MB; read whole, the answers would add 500 MB.
      assert.ok(grown < 100e6, `peak memory grew by ${Math.round(grown / 1e6)} MB`);
      assert.ok(fake.stats.bytesSent < 10 * 50e6, 'the answers were not read to their end');
      assert.ok(
        lines.some((line) => line.includes('sent an answer larger than 1048576 bytes')),
        'the log says why',
      );
    } finally {
      await proxy.stop();
      await fake.close();
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { loadConfig } from '../../proxy/config.ts';
import { findKeyMaterial } from '../../proxy/domain/key-material.ts';
import { startProxy } from '../../proxy/server.ts';
import { nestsDeeperThan } from '../../server-kit/json-body.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { spawnInstance } from '../support/fleet.ts';
import { http } from '../support/http.ts';
import { eventually, proxyEnvFor, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

const HEX_64 = `0x${'ab'.repeat(32)}`;
const PHRASE = Wallet.createRandom().mnemonic!.phrase;
const nested = (depth: number) => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('proxy: the defects an outside probe found', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('a return URL that passes its own limit but not once the status is added is a 400, not a 500', async () => {
    for (const query of [`n=${'x'.repeat(2_000)}`, `n=${'é'.repeat(625)}`]) {
      const answer = await stack.browser('/api/payments', {
        body: { checkoutId: await stack.checkout(), returnUrl: `${SHOP_ORIGIN}/return?${query}` },
        headers: { 'Idempotency-Key': `long-${randomBytes(6).toString('hex')}` },
      });
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.body.error, /returnUrl is too long/);
    }
    assert.ok(!stack.logs.some((line) => line.includes('unhandled error')));
  });

  it('deeply nested bodies are refused with a 400, without recursion', async () => {
    // Written as text: building it with JSON.stringify would overflow this test's own stack.
    const deep = (depth: number) => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;
    const raw = `{"amount":"1.00","currencyCode":"EUR","reference":"DEEP","metadata":${deep(5_000)}}`;
    const checkout = await stack.merchant('/api/checkouts', { raw, headers: { 'Content-Type': 'application/json' } });
    assert.equal(checkout.status, 400, checkout.text);
    assert.match(checkout.body.error, /must not nest deeper than 32 levels/);
    const payment = await stack.browser('/api/payments', {
      raw: `{"checkoutId":${deep(3_000)}}`,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'deep-body-1' },
    });
    assert.equal(payment.status, 400, payment.text);
    const shallow = await stack.merchant('/api/checkouts', {
      body: { amount: '1.00', currencyCode: 'EUR', reference: 'DEEP', metadata: nested(20) },
    });
    assert.equal(shallow.status, 201, shallow.text);
  });

  it('every route that takes a body refuses key material; webhooks are answered but never keep it', async () => {
    const order = await stack.operator('/api/orders/some-order', { method: 'DELETE', body: { privateKey: HEX_64 } });
    assert.equal(order.status, 400);
    const inMetadata = await stack.merchant('/api/checkouts', {
      body: { amount: '1.00', currencyCode: 'EUR', reference: 'K', metadata: { note: `key ${HEX_64}` } },
    });
    assert.equal(inMetadata.status, 400);
    const phrase = await stack.merchant('/api/checkouts', {
      body: { amount: '1.00', currencyCode: 'EUR', reference: 'K', metadata: { words: PHRASE } },
    });
    assert.equal(phrase.status, 400);
    const sentence = 'please leave the parcel at the green door behind the old garden shed today';
    const ordinary = await stack.merchant('/api/checkouts', {
      body: { amount: '1.00', currencyCode: 'EUR', reference: 'K', metadata: { note: sentence } },
    });
    assert.equal(ordinary.status, 201, 'an ordinary sentence is not a recovery phrase');
    const inReturnUrl = await stack.browser('/api/payments', {
      body: { checkoutId: await stack.checkout(), returnUrl: `${SHOP_ORIGIN}/return?k=${HEX_64}` },
      headers: { 'Idempotency-Key': `key-url-${randomBytes(6).toString('hex')}` },
    });
    assert.equal(inReturnUrl.status, 400);
    const redeliver = await stack.operator('/api/events/redeliver', { body: { mnemonic: PHRASE } });
    assert.equal(redeliver.status, 400);

    const marker = randomBytes(8).toString('hex');
    const hook = await http(stack.webhookUrl(), {
      body: { event: 'payment.status_updated', transactionId: `t-${marker}`, privateKey: HEX_64, extra: marker },
    });
    assert.equal(hook.status, 200);
    const db = new Database(stack.env.KASSA_DB, { readonly: true });
    try {
      const rows = db.prepare('SELECT body FROM webhook_events').all() as Array<{ body: string }>;
      assert.ok(rows.length > 0);
      assert.ok(rows.every((row) => !row.body.includes(HEX_64.slice(2)) && !row.body.includes(marker)));
    } finally {
      db.close();
    }
  });

  it('a client that hangs up mid-upload is not logged as an error of the proxy', async () => {
    const { port } = new URL(stack.proxy.origin);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /api/checkouts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stack.config.merchantKey}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"amount":',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!stack.logs.some((line) => line.includes('unhandled error')), stack.logs.slice(-3).join('\n'));
  });
});

describe('proxy: an Idempotency-Key whose attempt died with its process', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'kassa-stale-'));
  });
  after(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 during a slow initiate: after a restart, the retry with the same key gets a payment', async () => {
    const env = { ...proxyEnvFor(sandbox, join(dir, 'kassa.db')), KASSA_RATE_LIMIT: '0', KASSA_CREATE_RATE_LIMIT: '0' };
    const first = await spawnInstance(env, []);
    const checkout = await http(`${first.origin}/api/checkouts`, {
      body: { amount: '5.00', currencyCode: 'EUR', reference: 'STALE-1' },
      headers: { Authorization: `Bearer ${env.KASSA_MERCHANT_KEY}` },
    });
    const key = `stale-${randomBytes(6).toString('hex')}`;
    const pay = (origin: string) =>
      http(`${origin}/api/payments`, {
        body: { checkoutId: checkout.body.checkoutId },
        headers: { Origin: SHOP_ORIGIN, 'Idempotency-Key': key },
      });
    await http(`${sandbox.control}/faults`, {
      method: 'POST',
      body: { service: 'pay', kind: 'slow', delayMs: 5_000, times: 1, path: '/v1/payments/initiate' },
    });
    void pay(first.origin).catch(() => undefined);
    await eventually(
      async () => ((await http(`${sandbox.control}/faults`)).body.length === 0 ? true : undefined),
      'the initiate to reach the slow service',
    );
    await first.crash!();

    const config = loadConfig({ ...env, PORT: '0' });
    const second = await startProxy(config, { logSink: () => {}, staleAttemptMs: 200 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 250));
      // The dead process's attempt is taken over: a payment, not "in progress" for a process that is gone.
      const retry = await pay(second.origin);
      assert.equal(retry.status, 201, retry.text);
      assert.ok(retry.body.flowUrl);
      const again = await pay(second.origin);
      assert.equal(again.body.transactionId, retry.body.transactionId, 'one payment for the key from now on');
    } finally {
      await second.stop();
    }
  });
});

describe('proxy: the key-material rule and the depth check, as properties', () => {
  it('a key-named field anywhere is found; 64 hex digits only in free text; nothing ever throws', () => {
    assert.equal(findKeyMaterial({ txHash: HEX_64 }, false, ['metadata']), undefined, 'a transaction hash is fine');
    assert.equal(findKeyMaterial({ metadata: { a: [HEX_64] } }, false, ['metadata']), 'metadata.a[0]');
    assert.equal(findKeyMaterial({ a: { b: { seedPhrase: 'x' } } }, false), 'a.b.seedPhrase');
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (value, other) => {
        findKeyMaterial(value, true, ['metadata']);
        const hidden = { wrapper: [other, { deep: { privateKey: 'x' } }] };
        assert.equal(findKeyMaterial(hidden, false), 'wrapper[1].deep.privateKey');
      }),
    );
  });

  it('nestsDeeperThan agrees with the real depth of any JSON value', () => {
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null
        ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, max) => {
        assert.equal(nestsDeeperThan(JSON.stringify(value), max), depthOf(value) > max);
      }),
    );
  });
});

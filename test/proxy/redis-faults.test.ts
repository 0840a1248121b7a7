import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { redisKeys } from '../../proxy/state/redis/keys.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { StoreUnavailableError } from '../../proxy/state/store.ts';
import { http, type HttpResult } from '../support/http.ts';
import { startRedis, type RedisOptions } from '../support/redis-server.ts';
import { eventually, startStack } from '../support/stack.ts';
import { destinationRecord } from '../support/store-records.ts';

const onRedis = (url: string) => ({ KASSA_REDIS_URL: url, KASSA_REDIS_PREFIX: `r-${randomBytes(4).toString('hex')}:` });

describe('proxy on a Redis that stops answering', () => {
  // Redis answers nothing while paused, so every answer then is the proxy's own deadline on the store at work (a
  // proxy without one would never answer, and the request would give up after PATIENCE_MS); how long the
  // deadline is, is the setting's.
  it('paused (SIGSTOP): every request that needs the store gets 503 with Retry-After, /readyz says why; resumed: it recovers without a restart', async () => {
    const redis = await startRedis();
    const stack = await startStack({ env: onRedis(redis.url) });
    try {
      const checkoutId = await stack.checkout();
      const pending = (await stack.pay(await stack.checkout())).body;
      redis.pause();
      const calls: Record<string, () => Promise<HttpResult>> = {
        'a status read': () => stack.browser(`/api/payments/status/${'A'.repeat(43)}`),
        'a checkout': () =>
          stack.merchant('/api/checkouts', { body: { amount: '3.00', currencyCode: 'EUR', reference: 'PAUSED' } }),
        'a payment': () => stack.pay(checkoutId, 'paused-redis-key'),
        'a webhook': () =>
          http(stack.webhookUrl(), {
            body: { event: 'payment.status_updated', transactionId: pending.transactionId, status: 'COMPLETED' },
          }),
      };
      for (const [what, call] of Object.entries(calls)) {
        const answer = await call();
        assert.equal(answer.status, 503, `${what}: ${answer.text}`);
        assert.equal(answer.headers.get('retry-after'), '2', what);
      }
      const ready = await http(`${stack.proxy.origin}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(ready.body.reason, 'store_unavailable');
      assert.match(ready.body.detail, /timed out/i);
      assert.equal((await http(`${stack.proxy.origin}/livez`)).status, 200, 'alive all along');

      redis.resume();
      await eventually(
        async () => ((await http(`${stack.proxy.origin}/readyz`)).status === 200 ? true : undefined),
        'readiness after Redis is back',
      );
      const paid = await stack.pay(checkoutId, 'paused-redis-key');
      assert.equal(paid.status, 201, paid.text);
      assert.equal((await stack.browser(`/api/payments/status/${paid.body.statusToken}`)).status, 200);
    } finally {
      redis.resume();
      await stack.stop();
      await redis.stop();
    }
  });
});

describe('proxy on a Redis that may lose its data', () => {
  for (const [options, persistence, warned] of [
    [{ persistence: 'none' }, 'none', true],
    [{ persistence: 'none', refuseConfig: true }, 'unknown', true],
    [{ persistence: 'aof', refuseConfig: true }, 'aof', false],
  ] satisfies Array<[RedisOptions, string, boolean]>) {
    it(`${options.persistence === 'none' ? 'no persistence' : 'AOF'}${options.refuseConfig ? ', CONFIG refused' : ''}: ${warned ? 'a warning at start and in /readyz' : 'no warning'}`, async () => {
      const redis = await startRedis(options);
      const stack = await startStack({ env: onRedis(redis.url) });
      try {
        const warnings = stack.logs.filter((line) => line.includes('"level":"warn"') && line.includes('Redis restart'));
        assert.equal(warnings.length, warned ? 1 : 0, warnings.join('\n'));
        const ready = await http(`${stack.proxy.origin}/readyz`);
        assert.equal(ready.status, 200, 'ready all the same: the store works');
        assert.equal(ready.body.store.backend, 'redis');
        assert.equal(ready.body.store.persistence, persistence);
        if (warned) assert.match(ready.body.store.warning, /a Redis restart (may )?loses?/);
        else assert.equal(ready.body.store.warning, undefined);
      } finally {
        await stack.stop();
        await redis.stop();
      }
    });
  }
});

describe('proxy on a Redis whose command fails inside a pipeline', () => {
  // A pipeline reports a command's failure beside the other replies instead of rejecting: read as an
  // empty reply, a destination's waiting deliveries would show as none and a disabled one as enabled.
  it('the read fails as the store unavailable (503), never as nothing waiting or nothing disabled', async () => {
    const redis = await startRedis();
    const connections = await connectRedis(redis.url);
    const prefix = `pipeline-${randomBytes(4).toString('hex')}:`;
    const { destinations } = new RedisStore(connections.command, prefix);
    const key = redisKeys(prefix);
    try {
      const { destinationId } = destinationRecord();
      await destinations.create(destinationRecord({ destinationId }));
      assert.deepEqual(await destinations.pendingCounts(), new Map([[destinationId, 0]]));
      // A key of another type under the prefix (written by something else): its command fails with WRONGTYPE.
      await connections.command.set(key.destinationQueue(destinationId), 'not a queue');
      await assert.rejects(destinations.pendingCounts(), StoreUnavailableError);
      await connections.command.set(key.eventEndpoint(destinationId), 'not a hash');
      await assert.rejects(destinations.list(), StoreUnavailableError);
    } finally {
      await connections.close();
      await redis.stop();
    }
  });
});

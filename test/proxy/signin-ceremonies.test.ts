/**
 * Sign-in ceremonies in the store (store.operators.ceremonies): each taken once, never after it expired, on
 * every backend that keeps operators (SQLite and Redis; PostgreSQL's comes with issue 36's SQL
 * store); and a fleet on Redis, where a passkey sign-in started on one instance finishes on another,
 * and its answer is then worthless on either.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../proxy/config.ts';
import { startProxy, type RunningProxy } from '../../proxy/server.ts';
import type { CeremonyRecord } from '../../proxy/state/signin-ceremonies.ts';
import type { Store } from '../../proxy/state/store.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { http } from '../support/http.ts';
import { invite } from '../support/signin.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { STORE_BACKENDS } from '../support/store-backends.ts';

const ceremony = (overrides: Partial<CeremonyRecord> = {}): CeremonyRecord => ({
  keyHash: randomBytes(32).toString('hex'),
  purpose: 'passkey-signin',
  data: { operatorId: 'op_x', returnTo: null },
  expiresAt: Date.now() + 60_000,
  ...overrides,
});

for (const backend of STORE_BACKENDS.filter(({ name }) => name !== 'PostgreSQL')) {
  describe(`sign-in ceremonies: ${backend.name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await backend.open()));
    after(() => close());

    it('keeps a ceremony as it was put, for one taker', async () => {
      const put = ceremony({
        purpose: 'sso',
        data: { state: 's', nonce: 'n', codeVerifier: 'v', returnTo: '/operator' },
      });
      await store.operators.ceremonies.put(put);
      const takers = await Promise.all(
        Array.from({ length: 5 }, () => store.operators.ceremonies.take(put.keyHash, Date.now())),
      );
      assert.deepEqual(takers.filter(Boolean), [put], 'of five takers racing, one gets it');
      assert.equal(await store.operators.ceremonies.take(put.keyHash, Date.now()), undefined, 'and never again');
    });

    it('gives nothing for a key never put, nor for an expired ceremony (which is gone after)', async () => {
      assert.equal(await store.operators.ceremonies.take(randomBytes(32).toString('hex'), Date.now()), undefined);
      const lapsing = ceremony({ expiresAt: Date.now() + 50 });
      await store.operators.ceremonies.put(lapsing);
      assert.equal(await store.operators.ceremonies.take(lapsing.keyHash, lapsing.expiresAt), undefined);
      assert.equal(await store.operators.ceremonies.take(lapsing.keyHash, Date.now()), undefined);
    });
  });
}

describe('sign-in ceremonies: a fleet of two instances on one Redis', () => {
  /** The fleet's one address, which browsers open and passkeys are made for (no server listens on it here). */
  const PUBLIC_URL = 'http://localhost:8443';
  let redis: RedisServer;
  let stack: Stack;
  let second: RunningProxy;

  before(async () => {
    redis = await startRedis();
    stack = await startStack({
      env: { KASSA_REDIS_URL: redis.url, KASSA_REDIS_PREFIX: `fleet-${Date.now()}:`, KASSA_PUBLIC_URL: PUBLIC_URL },
    });
    second = await startProxy(loadConfig(stack.env), { logSink: () => undefined, setupLink: () => undefined });
  });
  after(async () => {
    await second?.stop();
    await stack?.stop();
    await redis?.stop();
  });

  /** A POST from the fleet's page, reaching one instance. */
  const post = (instance: string, path: string, body?: unknown) =>
    http(`${instance}${path}`, { method: 'POST', body, headers: { Origin: PUBLIC_URL } });

  it('a passkey made and a sign-in started on one instance finish on the other; its answer is then refused on both', async () => {
    const [one, two] = [stack.proxy.origin, second.origin];
    const authenticator = new SoftAuthenticator(PUBLIC_URL);
    const invited = await invite(stack.proxy, 'viewer');
    const link = { link: 'invitation', token: invited.token, passkeyName: 'Laptop' };
    const creation = await post(one, '/operator/passkeys/options', link);
    assert.equal(creation.body.options.rp.id, 'localhost', 'the RP ID is KASSA_PUBLIC_URL’s host');
    assert.equal(
      (await post(two, '/operator/passkeys', { response: authenticator.register(creation.body.options) })).status,
      200,
    );

    const options = await post(two, '/operator/signin/options');
    const assertion = { response: authenticator.assert(options.body.options) };
    const finished = await post(one, '/operator/signin', assertion);
    assert.equal(finished.status, 200, finished.text);
    assert.equal(finished.body.operator.operatorId, invited.operatorId);
    for (const instance of [one, two])
      assert.equal((await post(instance, '/operator/signin', assertion)).status, 401, `replayed at ${instance}`);
  });
});

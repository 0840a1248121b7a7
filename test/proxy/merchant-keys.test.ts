import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startFleet, type Fleet } from '../support/fleet.ts';
import { http } from '../support/http.ts';
import { as } from '../support/operators.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const checkoutBody = { amount: '12.00', currencyCode: 'EUR', reference: 'KEYS-1' };

describe('proxy: merchant keys, named, scoped, rolled and revoked', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const withKey =
    (secret: string) =>
    (path: string, init: Parameters<Stack['merchant']>[1] = {}) =>
      http(`${stack.proxy.origin}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${secret}`, ...init.headers },
      });
  const makeKey = async (body: Record<string, unknown>) => {
    const made = await stack.operator('/api/merchant-keys', { body });
    assert.equal(made.status, 201, made.text);
    return made.body as { key: { id: string; hint: string }; secret: string };
  };

  it('a key works within its scopes and is refused outside them with a 403 naming the scope; its last use is kept', async () => {
    const creator = await makeKey({ name: 'Checkout maker', scopes: ['checkouts:create'] });
    assert.match(creator.secret, /^kassa_mk_/);
    assert.ok(creator.secret.startsWith(creator.key.hint.slice(0, -1)));
    const created = await withKey(creator.secret)('/api/checkouts', { body: checkoutBody });
    assert.equal(created.status, 201, created.text);
    const read = await withKey(creator.secret)(`/api/checkouts/${created.body.checkoutId as string}`);
    assert.equal(read.status, 403);
    assert.match(read.body.error as string, /lacks the scope checkouts:read/);
    const reader = await makeKey({ name: 'Reader', scopes: ['checkouts:read'] });
    const refused = await withKey(reader.secret)('/api/checkouts', { body: checkoutBody });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error as string, /lacks the scope checkouts:create/);
    const readBack = await withKey(reader.secret)(`/api/checkouts/${created.body.checkoutId as string}`);
    assert.equal(readBack.status, 200);
    assert.equal(readBack.body.reference, 'KEYS-1', 'the merchant’s view');
    // The environment's key still does everything.
    assert.equal((await stack.merchant('/api/checkouts', { body: checkoutBody })).status, 201);
    const listed = (await stack.operator('/api/merchant-keys')).body.keys as Array<{
      id: string;
      lastUsedAt: string | null;
    }>;
    assert.ok(listed.find((key) => key.id === creator.key.id)?.lastUsedAt, 'last use recorded');
    assert.ok(!JSON.stringify(listed).includes(creator.secret), 'never shown again');
    // Unknown and malformed secrets open nothing.
    assert.equal((await withKey('kassa_mk_unknown')('/api/checkouts', { body: checkoutBody })).status, 401);
  });

  it('a key rolled while a client creates checkouts continuously: no request fails during the overlap; revoked, the old one opens nothing', async () => {
    const first = await makeKey({ name: 'Shop backend', scopes: ['checkouts:create', 'checkouts:read'] });
    let secret = first.secret;
    let running = true;
    const failures: string[] = [];
    let made = 0;
    const client = (async () => {
      while (running) {
        const answer = await withKey(secret)('/api/checkouts', { body: checkoutBody });
        if (answer.status === 201) made++;
        else failures.push(`${answer.status} ${answer.text}`);
      }
    })();
    await eventually(() => (made >= 5 ? true : undefined));
    const rolled = await stack.operator(`/api/merchant-keys/${first.key.id}/roll`, {
      body: { expiresInSeconds: 3600 },
    });
    assert.equal(rolled.status, 201, rolled.text);
    const atRoll = made;
    await eventually(() => (made >= atRoll + 5 ? true : undefined));
    secret = rolled.body.secret as string; // the client moves to the new key
    const atSwitch = made;
    await eventually(() => (made >= atSwitch + 5 ? true : undefined));
    running = false;
    await client;
    assert.deepEqual(failures, [], 'no failed request');
    const keys = (await stack.operator('/api/merchant-keys')).body.keys as Array<Record<string, unknown>>;
    const old = keys.find((key) => key.id === first.key.id)!;
    assert.equal(old.state, 'active');
    assert.ok(old.expiresAt, 'the old key has its expiry');
    assert.equal(keys.find((key) => key.id === rolled.body.key.id)!.rolledFrom, first.key.id);
    const revoked = await stack.operator(`/api/merchant-keys/${first.key.id}`, { method: 'DELETE' });
    assert.equal(revoked.body.state, 'revoked');
    assert.equal((await withKey(first.secret)('/api/checkouts', { body: checkoutBody })).status, 401);
    assert.equal((await withKey(secret)('/api/checkouts', { body: checkoutBody })).status, 201);
    const audit = await stack.operator(`/api/audit?targetId=${first.key.id}`);
    assert.deepEqual((audit.body.records as Array<{ action: string }>).map((record) => record.action).sort(), [
      'merchant_key.created',
      'merchant_key.revoked',
      'merchant_key.rolled',
    ]);
  });

  it('a roll with no overlap ends the old key at once; an expired key opens nothing', async () => {
    const key = await makeKey({ name: 'Short', scopes: ['checkouts:create'] });
    const rolled = await stack.operator(`/api/merchant-keys/${key.key.id}/roll`, { body: { expiresInSeconds: 0 } });
    assert.equal((await withKey(key.secret)('/api/checkouts', { body: checkoutBody })).status, 401);
    assert.equal((await withKey(rolled.body.secret as string)('/api/checkouts', { body: checkoutBody })).status, 201);
    assert.equal((await stack.operator(`/api/merchant-keys/${key.key.id}`, { method: 'DELETE' })).status, 409);
  });

  it('only admins manage keys', async () => {
    const finance = await stack.addOperator('finance');
    const refused = await as(stack.proxy.origin, finance)('/api/merchant-keys');
    assert.equal(refused.status, 403);
    assert.match(refused.body.error as string, /merchant_keys:manage/);
  });

  it('any body of the key routes is a 201 or a 400 naming the problem, never a 5xx', async () => {
    const body = fc.record(
      {
        name: fc.oneof(fc.string({ maxLength: 120 }), fc.integer()),
        scopes: fc.oneof(
          fc.array(fc.constantFrom('checkouts:create', 'checkouts:read', 'links:manage', '')),
          fc.string(),
        ),
        expiresInDays: fc.oneof(fc.integer({ min: -5, max: 4000 }), fc.double(), fc.string()),
        other: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const answer = await stack.operator('/api/merchant-keys', { body: sent });
        assert.ok([201, 400].includes(answer.status), `${answer.status} ${answer.text}`);
      }),
      { numRuns: 60 },
    );
    const roll = fc.record(
      { expiresInSeconds: fc.oneof(fc.integer({ min: -10, max: 3_000_000 }), fc.string()) },
      { requiredKeys: [] },
    );
    const target = await makeKey({ name: 'Rolled often', scopes: ['checkouts:read'] });
    let id = target.key.id;
    await fc.assert(
      fc.asyncProperty(roll, async (sent) => {
        const answer = await stack.operator(`/api/merchant-keys/${id}/roll`, { body: sent });
        assert.ok([201, 400].includes(answer.status), `${answer.status} ${answer.text}`);
        if (answer.status === 201) id = answer.body.key.id as string;
      }),
      { numRuns: 30 },
    );
  });
});

describe('proxy: a revoked merchant key is refused on every instance of a fleet (Redis)', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet({ instances: 3, store: 'redis' });
  });
  after(() => fleet.stop());

  it('made on one instance, it works on all; revoked on another, every instance refuses it at its next request', async () => {
    const made = await fleet.operator(0, '/api/merchant-keys', {
      body: { name: 'Fleet key', scopes: ['checkouts:create'] },
    });
    assert.equal(made.status, 201, made.text);
    const secret = made.body.secret as string;
    const create = (index: number) =>
      http(`${fleet.origin(index)}/api/checkouts`, {
        body: checkoutBody,
        headers: { Authorization: `Bearer ${secret}` },
      });
    for (const index of [0, 1, 2]) assert.equal((await create(index)).status, 201, `instance ${index}`);
    const revoked = await fleet.operator(1, `/api/merchant-keys/${made.body.key.id as string}`, { method: 'DELETE' });
    assert.equal(revoked.status, 200);
    // No cache: the very next request on each instance is refused (the bench measures how long after).
    for (const index of [0, 1, 2]) assert.equal((await create(index)).status, 401, `instance ${index}`);
  });
});

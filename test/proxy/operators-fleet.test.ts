import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { http } from '../support/http.ts';
import { as, deviceToken, addOperator, type TestOperator } from '../support/operators.ts';
import { FLEET_STORES, startFleet, type Fleet } from '../support/fleet.ts';

/**
 * A revocation on one instance is seen by every other at once: each request looks its credential up
 * in the shared store (no cache outlives it), so the very next request anywhere is refused. That is
 * stronger than "within a second", and asserts an order of events rather than a time.
 */
for (const { store, name } of FLEET_STORES)
  describe(`proxy: operators on a fleet (${name}): a revocation stops a credential on every instance at once`, () => {
    let fleet: Fleet;
    let person: TestOperator;

    before(async () => {
      fleet = await startFleet({ instances: 3, store });
      person = await addOperator({ services: fleet.at(0).services! }, 'finance', 'Fleet Person');
    });
    after(() => fleet?.stop());

    const me = (index: number, token: string) =>
      http(`${fleet.origin(index)}/api/operator/me`, { headers: { Authorization: `Bearer ${token}` } });

    it('a device token signed in on one instance works on all; revoked on one, the next request on each is refused', async () => {
      const token = await deviceToken(fleet.origin(0), person, 'Kassa extension on a fleet');
      for (const index of [0, 1, 2]) assert.equal((await me(index, token)).status, 200, `instance ${index}`);
      const { credentialId } = (await me(1, token)).body.credential as { credentialId: string };
      const revoked = await fleet.operator(2, `/api/credentials/${credentialId}`, { method: 'DELETE' });
      assert.equal(revoked.status, 204);
      for (const index of [0, 1, 2]) assert.equal((await me(index, token)).status, 401, `instance ${index}`);
    });

    it('a suspension on one instance stops the person’s tokens on every instance; reactivated, they work again', async () => {
      for (const index of [0, 1, 2]) assert.equal((await me(index, person.token)).status, 200);
      const suspend = await fleet.operator(0, `/api/operators/${person.operatorId}`, {
        method: 'PATCH',
        body: { state: 'suspended' },
      });
      assert.equal(suspend.body.state, 'suspended');
      for (const index of [0, 1, 2]) assert.equal((await me(index, person.token)).status, 401, `instance ${index}`);
      await fleet.operator(1, `/api/operators/${person.operatorId}`, { method: 'PATCH', body: { state: 'active' } });
      for (const index of [0, 1, 2]) assert.equal((await me(index, person.token)).status, 200, `instance ${index}`);
    });

    it('a role lowered on one instance caps the person on every instance at once', async () => {
      const call = (index: number) => as(fleet.origin(index), person)('/api/payments/export');
      assert.equal((await call(1)).status, 200);
      await fleet.operator(2, `/api/operators/${person.operatorId}`, { method: 'PATCH', body: { role: 'viewer' } });
      for (const index of [0, 1, 2]) assert.equal((await call(index)).status, 403, `instance ${index}`);
    });
  });

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FLEET_STORES, startFleet, type Fleet } from '../support/fleet.ts';
import { addOperator, deviceToken, type TestOperator } from '../support/operators.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

/**
 * The operators' live stream of payments checks its credential while it is open: once the device
 * token stops working (revoked, its owner suspended), its last event is `unauthorized`, with the words
 * a 401 gives, and it ends. The extension learns of a revocation from it without a call of its own.
 * The test asserts the order of events (the revocation answered, then the stream's last event), not a
 * time; the check runs twice a second.
 */
/** The stream, once the proxy answered it (200). */
async function stream(origin: string, token: string) {
  const open = openSse(`${origin}/api/payments/events`, { Authorization: `Bearer ${token}` });
  await eventually(() => (open.status ? true : undefined), 'the stream to be answered');
  assert.equal(open.status, 200);
  return open;
}

const lastEvent = (events: Array<{ event: string; data: string }>) => events.at(-1);

describe('proxy: the operators’ stream ends when its credential stops working', () => {
  let stack: Stack;
  let person: TestOperator;

  before(async () => {
    stack = await startStack();
    person = await stack.addOperator('viewer', 'Stream Viewer');
  });
  after(() => stack?.stop());

  it('a revoked device token: the stream’s last event is unauthorized, then it ends; another stream goes on', async () => {
    const token = await deviceToken(stack.proxy.origin, person, 'Kassa extension');
    const kept = await deviceToken(stack.proxy.origin, person, 'Kassa extension, second profile');
    const revoked = await stream(stack.proxy.origin, token);
    const other = await stream(stack.proxy.origin, kept);
    const me = await stack.operator('/api/operators/' + person.operatorId + '/sessions');
    const credential = (me.body.credentials as Array<{ credentialId: string; name: string }>).find(
      (each) => each.name === 'Kassa extension',
    )!;
    assert.equal(
      (await stack.operator(`/api/credentials/${credential.credentialId}`, { method: 'DELETE' })).status,
      204,
    );
    await revoked.waitForClose();
    const last = lastEvent(revoked.events);
    assert.equal(last?.event, 'unauthorized');
    assert.match(JSON.parse(last.data).error as string, /not valid/);
    assert.equal(other.closed, false, 'a stream whose credential still works stays open');
    other.close();
  });

  it('a suspended owner: every stream of theirs ends with unauthorized', async () => {
    const token = await deviceToken(stack.proxy.origin, person);
    const open = await stream(stack.proxy.origin, token);
    await stack.operator(`/api/operators/${person.operatorId}`, { method: 'PATCH', body: { state: 'suspended' } });
    await open.waitForClose();
    assert.equal(lastEvent(open.events)?.event, 'unauthorized');
    await stack.operator(`/api/operators/${person.operatorId}`, { method: 'PATCH', body: { state: 'active' } });
  });
});

for (const { store, name } of FLEET_STORES)
  describe(`proxy: the operators’ stream on a fleet (${name}): revoked on one instance, ended on another`, () => {
    let fleet: Fleet;
    let person: TestOperator;

    before(async () => {
      fleet = await startFleet({ instances: 2, store });
      person = await addOperator({ services: fleet.at(0).services! }, 'finance', 'Fleet Streamer');
    });
    after(() => fleet?.stop());

    it('a device token revoked on instance 1 ends its stream on instance 0', async () => {
      const token = await deviceToken(fleet.origin(0), person, 'Kassa extension on a fleet');
      const open = await stream(fleet.origin(0), token);
      const sessions = await fleet.operator(1, `/api/operators/${person.operatorId}/sessions`);
      const { credentialId } = (sessions.body.credentials as Array<{ credentialId: string; kind: string }>).find(
        (each) => each.kind === 'device',
      )!;
      assert.equal((await fleet.operator(1, `/api/credentials/${credentialId}`, { method: 'DELETE' })).status, 204);
      await open.waitForClose();
      assert.equal(lastEvent(open.events)?.event, 'unauthorized');
    });
  });

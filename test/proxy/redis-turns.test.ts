import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Turns } from '../../proxy/state/redis/turns.ts';
import { StoreUnavailableError } from '../../proxy/state/store.ts';

/** The turns a Redis instance's fan-outs take (redis/turns.ts): one at a time, in order, each wait bounded. */
describe('Redis fan-out turns', () => {
  it('one at a time, in the order asked', async () => {
    const turns = new Turns();
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map(async (name) => {
        const giveBack = await turns.take(60_000);
        order.push(`${name} takes`);
        await sleep(5);
        order.push(`${name} gives back`);
        giveBack();
      }),
    );
    assert.deepEqual(order, ['a takes', 'a gives back', 'b takes', 'b gives back', 'c takes', 'c gives back']);
  });

  it('a turn not reached within its wait is refused as the store unavailable; the ones after it still come, in order', async () => {
    const turns = new Turns();
    const holder = await turns.take(60_000);
    const hasty = turns.take(20);
    const patient = turns.take(60_000);
    await assert.rejects(hasty, StoreUnavailableError);
    const order: string[] = [];
    const next = patient.then((giveBack) => {
      order.push('patient takes');
      giveBack();
    });
    order.push('holder gives back');
    holder();
    await next;
    assert.deepEqual(order, ['holder gives back', 'patient takes'], 'the refused place passed on untaken');
    (await turns.take(60_000))();
  });
});

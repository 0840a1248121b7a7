import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DestinationDeliverer } from '../../proxy/events/destination-deliverer.ts';
import { retrySchedule } from '../../proxy/events/retry-schedule.ts';
import { createLogger } from '../../proxy/logger.ts';
import type { DestinationStore, QueuedDelivery } from '../../proxy/state/destinations.ts';
import type { Outbox } from '../../proxy/state/outbox.ts';
import { eventually } from '../support/stack.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const LEASE_MS = 2_000;
const TIMEOUT_MS = 800;

/**
 * A queue of deliveries as a store would lease it, recording when each lease was taken and when
 * each delivery was recorded, so that a test can tell whether an attempt outlived its lease.
 */
function recordingQueue(count: number) {
  const pending: QueuedDelivery[] = Array.from({ length: count }, (_, i) => ({
    eventId: `evt_${String(i).padStart(3, '0')}`,
    type: 'checkout.paid',
    payload: JSON.stringify({ type: 'checkout.paid', sequence: i }),
    createdAt: i,
    attempts: 0,
  }));
  const claims: number[] = [];
  const settled: Array<{ eventId: string; at: number; claim: number }> = [];
  const store = {
    claimHead: async (_id: string, now: number, limit: number) => {
      claims.push(now);
      return pending.slice(0, limit);
    },
    releaseLease: async () => undefined,
    settle: async (_id: string, eventId: string) => {
      pending.splice(
        pending.findIndex((delivery) => delivery.eventId === eventId),
        1,
      );
      settled.push({ eventId, at: Date.now(), claim: claims[claims.length - 1]! });
    },
  } as unknown as DestinationStore;
  return { store, claims, settled };
}

describe('proxy: one destination’s deliverer', () => {
  const stops: Array<() => Promise<void>> = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  it('stops posting a batch before its lease runs out, so another instance never takes a queue while an attempt is under way', async () => {
    // 20 deliveries of 300 ms each take 6 s: three times the lease.
    const receiver = await startReceiver({ delayMs: 300 });
    stops.push(() => receiver.close());
    const queue = recordingQueue(20);
    const deliverer = new DestinationDeliverer(
      {
        destinationId: 'dest_lease',
        url: receiver.url,
        description: '',
        enabledEvents: ['*'],
        secrets: [{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', expiresAt: null }],
        createdAt: 0,
        disabledAt: null,
        disabledReason: null,
      },
      {
        destinations: queue.store,
        outbox: { clearGone: async () => undefined } as unknown as Outbox,
        logger: createLogger({ level: 'error', sink: () => undefined, secrets: [] }),
        schedule: retrySchedule(),
        pollMs: 50,
        timeoutMs: TIMEOUT_MS,
        leaseMs: LEASE_MS,
        batch: 20,
      },
    );
    deliverer.start();
    stops.push(() => deliverer.stop());
    await eventually(async () => (queue.settled.length === 20 ? true : undefined));
    assert.deepEqual(
      queue.settled.map((entry) => entry.eventId),
      Array.from({ length: 20 }, (_, i) => `evt_${String(i).padStart(3, '0')}`),
      'in order, each once',
    );
    const late = queue.settled.filter((entry) => entry.at > entry.claim + LEASE_MS);
    assert.deepEqual(late, [], 'every attempt ended within the lease it was made under');
    assert.ok(queue.claims.length >= 3, `the batch went over several leases (${queue.claims.length})`);
  });
});

/**
 * What a fleet's coordination does alike on each backend that carries it (redis/, postgres/): status
 * changes and change signals over a channel between instances, and one token exchange at a time under
 * a lease. Each backend brings its channel (pub/sub, LISTEN/NOTIFY) and its lease.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { LocalChangeSignal, LocalStatusBus } from './local-coordination.ts';

/** Messages between instances; `resync` is called when some may have been missed (a reconnect). */
export interface FleetChannel {
  publish(message: string): Promise<void>;
  listen(handlers: { message: (text: string) => void; resync: () => void }): void;
}

/** Status changes to whichever instance holds each subscriber; each instance writes to its own streams. */
export class FleetStatusBus extends LocalStatusBus {
  private readonly resync = new Set<() => void>();

  constructor(private readonly channel: FleetChannel) {
    super();
    channel.listen({
      message: (text) => this.deliver(JSON.parse(text) as PaymentStatusView),
      resync: () => {
        for (const listener of this.resync) listener();
      },
    });
  }

  override publish(view: PaymentStatusView): Promise<void> {
    return this.channel.publish(JSON.stringify(view));
  }

  override onResync(listener: () => void): () => void {
    this.resync.add(listener);
    return () => this.resync.delete(listener);
  }
}

/** Record changes on a channel of their own; after a resync every listener looks again. */
export class FleetChangeSignal extends LocalChangeSignal {
  constructor(private readonly channel: FleetChannel) {
    super();
    channel.listen({ message: (id) => this.deliver(id), resync: () => this.deliverAll() });
  }

  override publish(id: string): Promise<void> {
    return this.channel.publish(id);
  }
}

/** How long an exchange's lease lasts (an instance that dies mid-exchange cannot hold it forever), and is waited for. */
const LEASE_MS = 20_000;
const LEASE_WAIT_MS = 30_000;

/**
 * Runs `exchange` holding the fleet's lease: `take` tries for it (for LEASE_MS), again and again until
 * it has it or LEASE_WAIT_MS pass; `release` lets go of it after.
 */
export async function underLease<T>(
  lease: { take(ms: number): Promise<boolean>; release(): Promise<unknown> },
  exchange: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  while (!(await lease.take(LEASE_MS))) {
    if (Date.now() > deadline) throw new Error('timed out waiting for another instance to exchange a token');
    await sleep(25 + Math.random() * 25);
  }
  try {
    return await exchange();
  } finally {
    await lease.release().catch(() => undefined);
  }
}

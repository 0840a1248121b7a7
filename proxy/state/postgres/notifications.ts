import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ChangeSignal, StatusBus, StatusListener } from '../coordination.ts';
import { LocalChangeSignal, LocalStatusBus } from '../local-coordination.ts';
import type { Logger } from '../../logger.ts';
import type { PaymentStatusView } from '../../../schemas/proxy-api.ts';
import type { Sql } from '../sql/database.ts';
import { CLOSE_WAIT_MS } from './database.ts';

/** How often the listening connection is checked: one that died silently is replaced within this. */
const HEARTBEAT_MS = 5_000;

/**
 * The connection that LISTENs, apart from the pool (a listening session must stay open). When it
 * breaks it is opened again, with a growing pause, and LISTENs again; NOTIFY keeps nothing for a
 * session that was away, so `onReconnect` then tells listeners to read the store again.
 */
export class Listener {
  private client: pg.Client | undefined;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly handlers = new Map<string, (payload: string) => void>();
  private readonly reconnected = new Set<() => void>();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly logger: Logger,
  ) {}

  /** Handles one channel's notifications; call before `start`. */
  on(channel: string, handler: (payload: string) => void): void {
    this.handlers.set(channel, handler);
  }

  onReconnect(listener: () => void): void {
    this.reconnected.add(listener);
  }

  /** Listens, failing when the first connection cannot be made (at start, the database must be there). */
  async start(): Promise<void> {
    this.client = await this.listen();
    this.heartbeat = setInterval(() => void this.check(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    await Promise.race([client?.end().catch(() => undefined), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
  }

  private async listen(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('notification', (message) => {
      if (message.payload !== undefined) this.handlers.get(message.channel)?.(message.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** A query on the listening session: one that died without closing its socket is found here. */
  private async check(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await client.query('SELECT 1').catch(() => this.lost(client));
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.logger.warn('database notifications lost; listening again');
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      await sleep(Math.min(100 * attempt, 1_000));
      if (this.stopped) return;
      try {
        const client = await this.listen();
        if (this.stopped) {
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        this.logger.info('database notifications back; streams look at the store again');
        for (const listener of this.reconnected) listener();
        return;
      } catch {
        // Still away: the next round waits a little longer.
      }
    }
  }
}

/**
 * A channel of this instance's: what it publishes it hands to its own listeners at once, and
 * NOTIFY carries to the others, tagged with this instance's id so that its own echo is let by.
 */
class Channel {
  private readonly id = randomUUID();

  constructor(
    private readonly sql: Sql,
    private readonly name: string,
    listener: Listener,
    private readonly deliver: (payload: string) => void,
  ) {
    listener.on(name, (message) => {
      const space = message.indexOf(' ');
      if (message.slice(0, space) !== this.id) deliver(message.slice(space + 1));
    });
  }

  async publish(payload: string): Promise<void> {
    await this.sql.run('SELECT pg_notify(?, ?)', [this.name, `${this.id} ${payload}`]);
    this.deliver(payload);
  }
}

/** Status changes through NOTIFY to whichever instance holds each subscriber. */
export class PostgresStatusBus implements StatusBus {
  private readonly local = new LocalStatusBus();
  private readonly resync = new Set<() => void>();
  private readonly channel: Channel;

  constructor(sql: Sql, channel: string, listener: Listener) {
    this.channel = new Channel(sql, channel, listener, (payload) =>
      this.local.deliver(JSON.parse(payload) as PaymentStatusView),
    );
    listener.onReconnect(() => {
      for (const resync of this.resync) resync();
    });
  }

  publish(view: PaymentStatusView): Promise<void> {
    return this.channel.publish(JSON.stringify(view));
  }

  subscribe(transactionId: string, listener: StatusListener): () => void {
    return this.local.subscribe(transactionId, listener);
  }

  subscribeAll(listener: StatusListener): () => void {
    return this.local.subscribeAll(listener);
  }

  onResync(listener: () => void): () => void {
    this.resync.add(listener);
    return () => this.resync.delete(listener);
  }
}

/** Record changes through NOTIFY on a channel of their own; after a reconnect every listener looks again. */
export class PostgresChangeSignal implements ChangeSignal {
  private readonly local = new LocalChangeSignal();
  private readonly channel: Channel;

  constructor(sql: Sql, channel: string, listener: Listener) {
    this.channel = new Channel(sql, channel, listener, (id) => this.local.deliver(id));
    listener.onReconnect(() => this.local.deliverAll());
  }

  publish(id: string): Promise<void> {
    return this.channel.publish(id);
  }

  subscribe(id: string, listener: () => void): () => void {
    return this.local.subscribe(id, listener);
  }
}

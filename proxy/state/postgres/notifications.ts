import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../../logger.ts';
import type { FleetChannel } from '../fleet-coordination.ts';
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
 * A channel through NOTIFY: what this instance publishes it hands to its own listeners at once, and
 * NOTIFY carries to the others, tagged with this instance's id so that its own echo is let by. NOTIFY
 * keeps nothing for a session that was away: after the listener reconnects, listeners look again.
 */
export function notifyChannel(sql: Sql, name: string, listener: Listener): FleetChannel {
  const id = randomUUID();
  let deliver: (message: string) => void = () => undefined;
  return {
    async publish(message) {
      await sql.run('SELECT pg_notify(?, ?)', [name, `${id} ${message}`]);
      deliver(message);
    },
    listen(handlers) {
      deliver = handlers.message;
      listener.on(name, (payload) => {
        const space = payload.indexOf(' ');
        if (payload.slice(0, space) !== id) handlers.message(payload.slice(space + 1));
      });
      listener.onReconnect(handlers.resync);
    },
  };
}

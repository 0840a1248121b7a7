import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../proxy/logger.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import type { Store } from '../../proxy/state/store.ts';
import { http } from '../../test/support/http.ts';
import { addOperatorByCommand } from '../../test/support/operators.ts';
import { seededPayment } from '../../test/support/seed-payments.ts';

/** The store a proxy configured by `env` keeps its state in, opened beside it (for seeding). */
async function openStoreOf(env: Record<string, string>): Promise<{ store: Store; close(): Promise<void> }> {
  if (env.KASSA_DATABASE_URL) {
    const logger = createLogger({ level: 'error', secrets: [] });
    const backend = await openPostgres({ url: env.KASSA_DATABASE_URL, poolSize: 16, logger });
    return { store: backend.store, close: () => backend.coordination.close() };
  }
  if (env.KASSA_REDIS_URL) {
    const connections = await connectRedis(env.KASSA_REDIS_URL);
    return { store: new RedisStore(connections.command, env.KASSA_REDIS_PREFIX!), close: () => connections.close() };
  }
  const store = await openSqlite(env.KASSA_DB!);
  return { store, close: () => store.close() };
}

export interface ExportFigures {
  payments: number;
  seedSeconds: number;
  /** To the export's last byte. */
  seconds: number;
  rows: number;
  megabytes: number;
  searchMs: number;
}

/**
 * Seeds `payments` payments into the store of the proxy at `origin` (configured by `env`), then times
 * the operator's CSV export of all of them and a search by reference and amount.
 */
export async function measureExport(options: {
  origin: () => string;
  env: Record<string, string>;
  payments: number;
  /** SQLite: the proxy is stopped while the bench writes its file (one process per file) and started again. */
  seedWhileStopped?: { stop(): Promise<void>; start(): Promise<void> };
}): Promise<ExportFigures> {
  await options.seedWhileStopped?.stop();
  const opened = await openStoreOf(options.env);
  const { store } = opened;
  const now = Date.now();
  const seeded = performance.now();
  try {
    // Some at a time: a networked store is kept busy without queueing the whole batch at once.
    const writers = 32;
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let i = writer; i < options.payments; i += writers) {
          // A thousand references, amounts 1 to 500, one a second apart: a search has something to narrow.
          const payment = seededPayment(i, `BENCH-${i % 1_000}`, now, {
            transactionId: `bench-${i}`,
            amount: `${(i % 500) + 1}.00`,
            createdAt: now - i * 1_000,
          });
          await store.recordPayment(payment);
        }
      }),
    );
  } finally {
    await opened.close();
  }
  const seedSeconds = (performance.now() - seeded) / 1000;
  await options.seedWhileStopped?.start();
  // Seeding SQLite (synchronous) held the event loop: kept-alive sockets the proxy closed meanwhile are
  // noticed, and dropped, before the export asks for one.
  await sleep(100);
  // A person who may export, made as a deployment makes one (kassa-proxy operators add --token).
  const operator = (await addOperatorByCommand(options.env, 'finance', 'Bench exporter')).headers;
  const started = performance.now();
  const answer = await fetch(`${options.origin()}/api/payments/export`, { headers: operator });
  const text = await answer.text();
  const seconds = (performance.now() - started) / 1000;
  const search = performance.now();
  await http(`${options.origin()}/api/payments?reference=BENCH-7&minAmount=100`, { headers: operator });
  return {
    payments: options.payments,
    seedSeconds,
    seconds,
    rows: text.split('\r\n').length - 2,
    megabytes: text.length / 1e6,
    searchMs: performance.now() - search,
  };
}

export const describeExport = (figures: ExportFigures) =>
  `export of ${figures.payments.toLocaleString('en')} payments: ${figures.seconds.toFixed(2)} s, ${figures.rows.toLocaleString('en')} rows, ${figures.megabytes.toFixed(1)} MB (seeded in ${figures.seedSeconds.toFixed(1)} s); a search by reference and amount: ${figures.searchMs.toFixed(0)} ms`;

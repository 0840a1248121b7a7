import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ensureDebianPackage } from './debian-package.ts';
import { freePort } from './free-port.ts';
import { holdPort } from './port-holder.ts';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from './patience.ts';

const run = promisify(execFile);

/** Debian's PostgreSQL binaries (`postgresql` installs them in /usr/lib/postgresql/<major>/bin). */
export const ensurePostgres = (): string =>
  dirname(
    ensureDebianPackage(
      [15, 16, 17, 14].map((major) => `/usr/lib/postgresql/${major}/bin/initdb`),
      'postgresql',
      'KASSA_POSTGRES_INITDB',
    ),
  );

/** PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` user. */
const asRoot = process.getuid?.() === 0;
const owner = (() => {
  if (!asRoot) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
})();

/** Runs one of PostgreSQL's programs (as `postgres` when we are root). */
async function pgProgram(bin: string, program: string, args: string[]): Promise<string> {
  const [command, commandArgs] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
    : [join(bin, program), args];
  try {
    return (await run(command, commandArgs, { encoding: 'utf8', timeout: TEST_TIMEOUT_MS })).stdout;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${program} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    );
  }
}

/** A directory of the server's own (PostgreSQL wants its data directory to be its user's, mode 0700). */
function ownedDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (owner) chownSync(path, owner.uid, owner.gid);
  return path;
}

export interface PostgresServer {
  port: number;
  url(database?: string): string;
  /** A database of its own (one shop, one stack), on this server; its URL. */
  createDatabase(): Promise<string>;
  /** Runs SQL on a database of this server, as its superuser. */
  sql(text: string, database?: string): Promise<pg.QueryResult[]>;
  /**
   * Stops it (as an administrator's fast shutdown: sessions end with 57P01) and starts it again on
   * the same port and data. Its port is held while down, so that no other test's server takes it.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Ends the postmaster with SIGKILL, as a machine's crash would (its sessions die with it). */
  kill(): void;
  /** A standby of this server becomes a primary (a failover). */
  promote(): Promise<void>;
  /** A streaming replica of this server, on a port of its own. */
  startReplica(): Promise<PostgresServer>;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server on a loopback port, made with initdb in a temporary directory (its socket
 * there too) and run with pg_ctl; stopped when the test process ends, whatever happens. Durability
 * settings are a test's (no fsync): the tests kill processes, not the machine.
 */
export async function startPostgres(options: { from?: { port: number } } = {}): Promise<PostgresServer> {
  const bin = ensurePostgres();
  const root = mkdtempSync(join(tmpdir(), 'kassa-pg-'));
  ownedDir(root);
  const data = join(root, 'data');
  const socketDir = ownedDir(join(root, 'socket'));
  if (options.from) {
    // A streaming replica of `from`: its base backup, and a standby.signal with the primary's address (-R).
    ownedDir(data);
    await pgProgram(
      bin,
      'pg_basebackup',
      ['-h', '127.0.0.1', '-p', String(options.from.port), '-U', 'postgres'].concat([
        '-D',
        data,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]),
    );
  } else {
    await pgProgram(bin, 'initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }
  // Picked once the data directory is made (initdb takes seconds), so that the port is free as short
  // a time as can be before the server takes it: another suite's server could take it meanwhile.
  const port = await freePort();
  const settings = {
    port: String(port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: socketDir,
    max_connections: '300',
    fsync: 'off',
    full_page_writes: 'off',
    wal_level: 'replica',
    hot_standby: 'on',
    log_min_messages: 'warning',
  };
  const ctl = (...args: string[]) => pgProgram(bin, 'pg_ctl', ['-D', data, ...args]);
  const start = () =>
    ctl(
      '-l',
      join(root, 'server.log'),
      '-w',
      '-t',
      String(PATIENCE_MS / 1000),
      '-o',
      Object.entries(settings)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
      'start',
    );
  const stop = (mode: 'fast' | 'immediate') => ctl('-w', '-t', '30', '-m', mode, 'stop').catch(() => undefined);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;

  // The tests' process ending must not leave a server behind: stopped on exit, and by a watchdog if
  // the process is killed (pg_ctl's server is no child of ours, so nothing else would stop it).
  const stopArgs = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  const [stopCommand, stopCommandArgs] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...stopArgs]]
    : [join(bin, 'pg_ctl'), stopArgs];
  const stopOnExit = () => {
    spawnSync(stopCommand, stopCommandArgs, { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);
  const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const watchdog = spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${[stopCommand, ...stopCommandArgs].map(quoted).join(' ')}; rm -rf ${quoted(root)}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  await start();

  const server: PostgresServer = {
    port,
    url,
    async createDatabase(): Promise<string> {
      const name = `kassa_${randomBytes(6).toString('hex')}`;
      await server.sql(`CREATE DATABASE ${name}`);
      return url(name);
    },
    async sql(text: string, database = 'postgres'): Promise<pg.QueryResult[]> {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        const result = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
        return Array.isArray(result) ? result : [result];
      } finally {
        await client.end();
      }
    },
    async restart(whileDown?: () => Promise<void>): Promise<void> {
      await stop('fast');
      const holder = await holdPort(port);
      try {
        await whileDown?.();
      } finally {
        await holder.close();
      }
      await start();
    },
    kill(): void {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
    },
    async promote(): Promise<void> {
      await ctl('-w', 'promote');
    },
    startReplica: () => startPostgres({ from: server }),
    async stop(): Promise<void> {
      process.off('exit', stopOnExit);
      watchdog.kill();
      await stop('immediate');
      rmSync(root, { recursive: true, force: true });
    },
  };
  return server;
}

/** One server for a whole test process, started on first use; each user takes a database of its own. */
let shared: Promise<PostgresServer> | undefined;
export const sharedPostgres = (): Promise<PostgresServer> => (shared ??= startPostgres());

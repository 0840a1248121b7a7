import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDebianPackage } from './debian-package.ts';
import { freePort } from './free-port.ts';
import { PATIENCE_MS } from './patience.ts';

export const ensureRedisServer = (): string =>
  ensureDebianPackage(['/usr/bin/redis-server'], 'redis-server', 'KASSA_REDIS_SERVER');

export interface RedisOptions {
  /** AOF (the default, as a production Redis should), or nothing kept on disk at all. */
  persistence?: 'aof' | 'none';
  /** CONFIG renamed away, as managed Redis services often do. */
  refuseConfig?: boolean;
}

/**
 * A real redis-server on a loopback port with its own directory, persisting with AOF so that a
 * restart keeps its data, as a production Redis would.
 */
export async function startRedis(options: RedisOptions = {}) {
  const binary = ensureRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'kassa-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        options.persistence === 'none' ? 'no' : 'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--protected-mode',
        'yes',
        ...(options.refuseConfig ? ['--rename-command', 'CONFIG', ''] : []),
      ];
      const process_ = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = process_;
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), PATIENCE_MS);
      process_.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          // A test process ends when its work is done, whether or not this server still runs.
          process_.stdout.resume();
          (process_.stdout as unknown as { unref?: () => void }).unref?.();
          (process_.stderr as unknown as { unref?: () => void }).unref?.();
          process_.unref();
          resolve();
        }
      });
      process_.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}):\n${output}`));
      });
    });
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    // A paused server takes no SIGTERM until it runs again.
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    // Polled, not awaited as an event: the child is unreferenced, and re-referencing it does not
    // hold the process, which could then end mid-wait.
    for (
      const deadline = Date.now() + 5_000;
      running.exitCode === null && running.signalCode === null;
      await sleep(20)
    ) {
      if (Date.now() > deadline) running.kill('SIGKILL');
    }
  };
  // The tests' process ending must not leave a redis-server behind.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Freezes the server (SIGSTOP): its connections stay open and nothing is answered, as in a black hole. */
    pause() {
      child?.kill('SIGSTOP');
    },
    /** Lets a paused server run again (SIGCONT). */
    resume() {
      child?.kill('SIGCONT');
    },
    /** Stops and starts it again on the same port and data (a Redis restart). */
    async restart(whileDown?: () => Promise<void>) {
      await stop();
      await whileDown?.();
      await start();
    },
    async stop() {
      process.off('exit', killOnExit);
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RedisServer = Awaited<ReturnType<typeof startRedis>>;

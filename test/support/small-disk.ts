import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small disk for a proxy's SQLite file, which a test fills and frees. As root, a real tmpfs of
 * `bytes` mounted on a fresh directory, filled to its last page by a filler file. Where mounting is
 * not allowed (not root, a container without CAP_SYS_ADMIN, or KASSA_TEST_NO_MOUNT=1), a full disk
 * is simulated on the proxy's own process: a file-size limit (prlimit) past which every write fails.
 */
export function smallDisk(bytes = 8 * 1024 * 1024) {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-disk-'));
  const mounted =
    process.env.KASSA_TEST_NO_MOUNT !== '1' &&
    spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
  const filler = join(dir, 'filler');
  const limit = (pid: number, size: string) => {
    const result = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${size}:unlimited`], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`prlimit failed: ${result.stderr}`);
  };
  return {
    dir,
    /** Whether this is a real tmpfs (or the simulation). */
    mounted,
    /** The command line prefix that starts a process on a disk that is full already. */
    fullFromTheStart: (): string[] => (mounted ? [] : ['prlimit', '--fsize=0:unlimited', '--']),
    /** Fills the disk (the simulation: for the process `pid`; without one, see fullFromTheStart). */
    fill(pid?: number): void {
      if (!mounted) return pid === undefined ? undefined : limit(pid, '1');
      const fd = openSync(filler, 'a');
      const page = Buffer.alloc(4096, 1);
      try {
        for (;;) writeSync(fd, page);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    /** Makes room again. */
    free(pid?: number): void {
      if (!mounted) return pid === undefined ? undefined : limit(pid, 'unlimited');
      rmSync(filler, { force: true });
    },
    close(): void {
      if (mounted) spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type SmallDisk = ReturnType<typeof smallDisk>;

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The anvil binary ships inside a per-platform npm package of @foundry-rs/anvil. */
const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 3_000;
const READY_LINE = /Listening on ([\d.]+):(\d+)/;

/**
 * On POSIX a shell stands between us and anvil: it starts anvil, then blocks reading its stdin (our
 * pipe) and kills anvil when that read ends. The pipe closes however this process ends, SIGKILL
 * included, so no anvil outlives the emulator or a test run. `wait` makes the shell exit with anvil.
 */
const WATCHDOG = 'exec 3<&0; "$0" "$@" </dev/null & pid=$!; { read -r _ <&3; kill "$pid" 2>/dev/null; } & wait "$pid"';

export function anvilBinary(): string {
  const platform = `${process.platform}-${process.arch}`;
  const name = PLATFORM_PACKAGES[platform];
  if (!name)
    throw new Error(`anvil has no npm build for ${platform} (supported: ${Object.keys(PLATFORM_PACKAGES).join(', ')})`);
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
  } catch {
    throw new Error(
      `${name} is not installed: run npm install (it arrives as an optional dependency of @foundry-rs/anvil)`,
    );
  }
  const binary = join(dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`${name} has no binary at ${binary}`);
  return binary;
}

export interface AnvilNode {
  chainId: number;
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Starts one anvil chain on a free loopback port and resolves once it listens. */
export function startAnvil(chainId: number): Promise<AnvilNode> {
  const binary = anvilBinary();
  const args = ['--port', '0', '--host', '127.0.0.1', '--chain-id', String(chainId)];
  const child =
    process.platform === 'win32'
      ? spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true })
      : spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  // Without the watchdog shell, the exit hook is what keeps anvil from outliving us.
  const killOnExit = () => child.kill('SIGKILL');
  if (process.platform === 'win32') process.once('exit', killOnExit);

  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<AnvilNode>((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      void stop(child, exited, killOnExit);
      reject(new Error(`anvil (chain ${chainId}) ${reason}; its output ended with:\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`did not listen within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
      const ready = READY_LINE.exec(output);
      if (!ready) return;
      clearTimeout(timer);
      // anvil logs every RPC call; the pipes are drained and dropped so it never blocks on a full one.
      output = '';
      child.stdout.off('data', onData).resume();
      child.stderr.off('data', onData).resume();
      child.off('exit', onEarlyExit);
      resolve({ chainId, rpcUrl: `http://${ready[1]}:${ready[2]}`, stop: () => stop(child, exited, killOnExit) });
    };
    const onEarlyExit = (code: number | null) => fail(`exited before listening (code ${code})`);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onEarlyExit);
    child.once('error', (error) => fail(`could not start: ${error.message}`));
  });
}

async function stop(child: ChildProcess, exited: Promise<void>, killOnExit: () => void): Promise<void> {
  process.off('exit', killOnExit);
  // Ending stdin also ends the watchdog's reader when anvil has already exited on its own.
  child.stdin!.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (process.platform === 'win32') child.kill();
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

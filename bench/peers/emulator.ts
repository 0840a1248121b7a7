/**
 * The emulator: from spawning the process to the first payment it answers over HTTP. Kassa's sandbox
 * is started as `npm run sandbox` starts it (its two local chains included) and a payment initiated
 * with the ready-made key; stripe-mock, where its npm package installs and runs here, is started
 * the same way and asked to create a PaymentIntent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../test/support/free-port.ts';
import { median } from '../stats.ts';
import { reasonOf, type Figure, type Report } from './report.ts';
import { installPeer } from './work-folder.ts';

const root = join(import.meta.dirname, '..', '..');
const STARTS = 3;
const WHAT = 'emulator cold start -> first answered payment (median)';
/** The npm name stripe-mock would have; its releases are Go binaries, which an install script would have to download. */
export const STRIPE_MOCK = { 'stripe-mock': 'latest' };

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The first stdout line of `child`, parsed as JSON (the sandbox prints its addresses so). */
function firstJsonLine(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(new Error(`the sandbox printed ${line.slice(0, 200)}`, { cause: error }));
      }
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it printed its addresses`)));
  });
}

async function kassaSandboxStart(): Promise<number> {
  const started = performance.now();
  const child = spawn(
    join(root, 'node_modules', '.bin', 'tsx'),
    ['sandbox/cli.ts', '--port', '0', '--settlement-ms', '0'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const { sandbox } = (await firstJsonLine(child)) as { sandbox: { pay: string; clientSecret: string } };
    const token = await fetch(`${sandbox.pay}/v1/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_secret: sandbox.clientSecret }),
    });
    if (!token.ok) throw new Error(`token exchange: ${token.status}`);
    const { access_token } = (await token.json()) as { access_token: string };
    const payment = await fetch(`${sandbox.pay}/v1/payments/initiate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${access_token}` },
      body: JSON.stringify({
        redirectUrl: 'http://127.0.0.1:9/return',
        amount: 42.5,
        currencyCode: 'EUR',
        reference: 'BENCH-1',
      }),
    });
    if (!payment.ok) throw new Error(`payment initiation: ${payment.status} ${await payment.text()}`);
    await payment.json();
    return performance.now() - started;
  } finally {
    await stopped(child);
  }
}

/** stripe-mock's binary, started on a free port, until it answers POST /v1/payment_intents. */
async function stripeMockStart(binary: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(binary, ['-http-port', String(port)], { stdio: 'ignore' });
  let exited: string | undefined;
  child.once('exit', (code) => (exited = `stripe-mock exited (${code})`));
  child.once('error', (error) => (exited = `stripe-mock could not be started: ${error.message}`));
  try {
    while (performance.now() - started < 30_000) {
      if (exited) throw new Error(exited);
      const answer = await fetch(`http://127.0.0.1:${port}/v1/payment_intents`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sk_test_123', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'amount=4250&currency=eur',
      }).catch(() => undefined);
      if (answer?.ok) {
        await answer.json();
        return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('stripe-mock did not answer within 30 s');
  } finally {
    await stopped(child);
  }
}

async function medianOf(start: () => Promise<number>): Promise<{ median: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) times.push(await start());
  return { median: median(times), max: Math.max(...times) };
}

export async function emulatorStart(report: Report): Promise<void> {
  const kassaTimes = await medianOf(kassaSandboxStart);
  const kassa: Figure = { label: 'Kassa sandbox', value: kassaTimes.median, unit: 'ms' };
  report.note(
    `Kassa sandbox (tsx sandbox/cli.ts: 2 chains, contracts, accounts) spawn -> payment initiated: median ${kassaTimes.median.toFixed(0)} ms, max ${kassaTimes.max.toFixed(0)} ms over ${STARTS} starts`,
  );
  try {
    // Its install script is what would fetch the binary, so scripts run for this one.
    const installed = await installPeer('stripe-mock', STRIPE_MOCK, { scripts: true });
    const binary = join(installed.dir, 'node_modules', '.bin', 'stripe-mock');
    if (!existsSync(binary)) throw new Error('the stripe-mock package installed no stripe-mock command');
    const peer = await medianOf(() => stripeMockStart(binary));
    report.note(
      `stripe-mock spawn -> PaymentIntent created: median ${peer.median.toFixed(0)} ms, max ${peer.max.toFixed(0)} ms`,
    );
    report.ratio(WHAT, kassa, { label: 'stripe-mock', value: peer.median, unit: 'ms' });
  } catch (error) {
    report.unavailable(
      WHAT,
      kassa,
      'stripe-mock',
      `could not be run here: ${reasonOf(error)}; stripe-mock ships as a Go binary (release downloads, Homebrew, Docker, go install), none of which this machine reaches`,
    );
  }
}

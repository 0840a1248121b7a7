/**
 * Passkey sign-in at the proxy (target: p95 under 50 ms): `POST /operator/signin` over loopback, from
 * the request to the answer, with everything it does (the challenge taken from the store, the passkey
 * read, the ES256 signature verified, the counter compared-and-set, the account read, the session
 * made, the audit written), on SQLite, one sign-in at a time; the assertions come from a software
 * authenticator, each on fresh options (not timed).
 */
import { fromPage, operatorWithPasskey } from '../test/support/signin.ts';
import { SoftAuthenticator } from '../test/support/soft-authenticator.ts';
import { startStack } from '../test/support/stack.ts';
import { ms, percentile } from './stats.ts';

const SIGNINS = Number(process.env.KASSA_BENCH_SIGNINS ?? 400);
const WARM_UP = 40;

export default async function signinBench(): Promise<void> {
  const stack = await startStack({ env: { KASSA_LOG_LEVEL: 'warn' } });
  try {
    const origin = stack.proxy.origin;
    const authenticator = new SoftAuthenticator(origin);
    await operatorWithPasskey(stack.proxy, authenticator);
    const times: number[] = [];
    for (let round = 0; round < WARM_UP + SIGNINS; round++) {
      const options = await fromPage(origin, '/operator/signin/options');
      const body = JSON.stringify({ response: authenticator.assert(options.body.options) });
      const started = performance.now();
      const answer = await fetch(`${origin}/operator/signin`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: origin },
        body,
      });
      await answer.arrayBuffer();
      const took = performance.now() - started;
      if (answer.status !== 200) throw new Error(`sign-in ${round} answered ${answer.status}`);
      if (round >= WARM_UP) times.push(took);
    }
    console.log(
      `passkey sign-in verification at the proxy (POST /operator/signin over loopback, SQLite, ES256): p50 ${ms(percentile(times, 50))}, p90 ${ms(percentile(times, 90))}, p95 ${ms(percentile(times, 95))}, max ${ms(Math.max(...times))} over ${SIGNINS} sign-ins (target p95 < 50 ms)`,
    );
  } finally {
    await stack.stop();
  }
}

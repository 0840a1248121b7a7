/**
 * The proxy's figures, in one run:
 * - status reads per second through the proxy, against a bare node:http server answering the same
 *   JSON (target: a ratio of at least 0.5);
 * - with 1,000 SSE subscribers on one payment: webhook to each subscriber's event (target: p95 under
 *   100 ms) and the upstream reads in 60 s of watching (target: at most 13);
 * - 1,000 concurrent payment creations on a cold proxy: token requests (target: 1).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from '../test/support/http.ts';
import { startStack, type Stack } from '../test/support/stack.ts';
import { measureFanOut } from './load/fan-out.ts';
import { runWorker, type ReadsResult } from './load/run-worker.ts';
import { ms } from './stats.ts';

const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 5);
const WATCH_SECONDS = Number(process.env.KASSA_BENCH_WATCH_SECONDS ?? 60);
const SUBSCRIBERS = 1_000;
const CREATIONS = 1_000;
const READ_CLIENTS = 32;

export default async function benchProxy(): Promise<void> {
  const stack = await startStack({ env: { KASSA_LOG_LEVEL: 'warn' } });
  try {
    await statusReads(stack);
    await fanOut(stack);
    await concurrentCreations(stack);
  } finally {
    await stack.stop();
  }
}

async function statusReads(stack: Stack): Promise<void> {
  const payment = (await stack.pay(await stack.checkout())).body;
  const url = `${stack.proxy.origin}/api/payments/status/${payment.statusToken}`;
  const body = (await http(url)).text;
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  try {
    const job = { kind: 'reads', clients: READ_CLIENTS, durationMs: READ_SECONDS * 1000 };
    const base = await runWorker<ReadsResult>({
      ...job,
      urls: [`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`],
    });
    const proxied = await runWorker<ReadsResult>({ ...job, urls: [url] });
    const [baseRate, proxyRate] = [base.answers / base.seconds, proxied.answers / proxied.seconds];
    console.log(
      `status reads: proxy ${proxyRate.toFixed(0)}/s, bare node:http ${baseRate.toFixed(0)}/s, ratio ${(proxyRate / baseRate).toFixed(2)} (target >= 0.5; ${READ_CLIENTS} keep-alive clients, ${READ_SECONDS} s each, ${proxied.errors} errors)`,
    );
  } finally {
    bare.closeAllConnections();
    bare.close();
  }
}

async function fanOut(stack: Stack): Promise<void> {
  const payment = (await stack.pay(await stack.checkout())).body;
  const result = await measureFanOut({
    control: stack.sandbox.control,
    transactionId: payment.transactionId,
    streamUrls: [`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`],
    subscribers: SUBSCRIBERS,
    watchMs: WATCH_SECONDS * 1000,
  });
  console.log(
    `${SUBSCRIBERS} SSE subscribers on one payment: webhook -> event p50 ${ms(result.p50)}, p95 ${ms(result.p95)}, last ${ms(result.last)} (target p95 < 100 ms; ${result.missed} missed)`,
  );
  console.log(
    `upstream reads while they watched for ${WATCH_SECONDS} s, webhook included: ${result.reads} (target <= 13)`,
  );
}

async function concurrentCreations(stack: Stack): Promise<void> {
  const cold = await startStack({ reuseSandbox: stack.sandbox, env: { KASSA_LOG_LEVEL: 'warn' } });
  try {
    const checkouts: string[] = [];
    for (let batch = 0; batch < CREATIONS / 50; batch++)
      checkouts.push(...(await Promise.all(Array.from({ length: 50 }, () => cold.checkout()))));
    const tokensBefore = ((await cold.control('/metrics')).body['pay.token'] as number | undefined) ?? 0;
    const started = performance.now();
    const results = await Promise.all(checkouts.map((checkoutId) => cold.pay(checkoutId)));
    const seconds = (performance.now() - started) / 1000;
    const tokens = (((await cold.control('/metrics')).body['pay.token'] as number | undefined) ?? 0) - tokensBefore;
    const count = (status: number) => results.filter((result) => result.status === status).length;
    console.log(
      `${CREATIONS} concurrent payment creations on a cold proxy: ${tokens} token request(s) (target 1); ${count(201)} created, ${count(429)} told to retry (429, the 100/min upstream budget), ${CREATIONS - count(201) - count(429)} other, in ${seconds.toFixed(1)} s`,
    );
  } finally {
    await cold.stop();
  }
}

/**
 * What operators as people cost a request (issue 37): the permission check of an operator read
 * (operatorAuth: the credential looked up by its hash in the store, its owner with it, the role's
 * permission), as the p95 a guarded route takes over the same route unguarded. Target: under 1 ms
 * added at p95. On SQLite (one process), and PostgreSQL and Redis (a fleet's stores, over loopback).
 */
import { Hono } from 'hono';
import { AuditTrail, CLI_ACTOR, NO_CONTEXT } from '../proxy/operator/audit-trail.ts';
import { Credentials } from '../proxy/operator/credentials.ts';
import { operatorAuth } from '../proxy/operator/operator-auth.ts';
import { OperatorAccounts } from '../proxy/operator/operators.ts';
import type { Store } from '../proxy/state/store.ts';
import { STORE_BACKENDS } from '../test/support/store-backends.ts';
import { median, percentile } from './stats.ts';

const CALLS = Number(process.env.KASSA_BENCH_AUTH_CALLS ?? 4000);
const TARGET_MS = 1;

const micros = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

/** Times `calls` requests to each of two routes, alternating, so that a slow moment falls on both. */
async function measure(store: Store): Promise<{ guarded: number[]; plain: number[] }> {
  const credentials = new Credentials(store.operators);
  const accounts = new OperatorAccounts(store.operators, credentials, new AuditTrail(store.audit));
  const { token } = await accounts.addWithToken(
    { name: 'Bench viewer', email: `bench-${Date.now()}@shop.test`, role: 'viewer' },
    { actor: CLI_ACTOR, context: NO_CONTEXT },
  );
  const app = new Hono();
  const read = () => new Response('{"payments":[]}', { headers: { 'Content-Type': 'application/json' } });
  app.get('/plain', read);
  app.get('/guarded', operatorAuth({ credentials, permission: 'payments:read' }), read);
  const headers = { Authorization: `Bearer ${token}` };
  const guarded: number[] = [];
  const plain: number[] = [];
  for (let call = -200; call < CALLS; call++) {
    let started = performance.now();
    const withAuth = await app.request('/guarded', { headers });
    const guardedMs = performance.now() - started;
    started = performance.now();
    await app.request('/plain', { headers });
    const plainMs = performance.now() - started;
    if (withAuth.status !== 200) throw new Error(`the guarded read answered ${withAuth.status}`);
    // The first calls warm up the statements, the connection and the JIT.
    if (call < 0) continue;
    guarded.push(guardedMs);
    plain.push(plainMs);
  }
  return { guarded, plain };
}

export default async function operatorsBench(): Promise<void> {
  console.log(`Operators: the permission check of an operator read (${CALLS} reads each, in process)`);
  let failed = false;
  for (const backend of STORE_BACKENDS) {
    let opened;
    try {
      opened = await backend.open();
      const { guarded, plain } = await measure(opened.store);
      const added = percentile(guarded, 95) - percentile(plain, 95);
      const verdict = added < TARGET_MS ? 'within' : 'OVER';
      console.log(
        `  ${backend.name.padEnd(10)} p95 added ${micros(added)} (${verdict} the ${TARGET_MS} ms target); guarded p95 ${micros(percentile(guarded, 95))}, median ${micros(median(guarded))}; unguarded p95 ${micros(percentile(plain, 95))}`,
      );
    } catch (error) {
      console.log(`  ${backend.name.padEnd(10)} not measured: ${(error as Error).message}`);
      failed = true;
    } finally {
      await opened?.close();
    }
  }
  if (failed) process.exitCode = 1;
}

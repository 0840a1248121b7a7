import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Json } from '../support/http.ts';
import { runCommand } from '../support/run-command.ts';
import { as } from '../support/operators.ts';
import { startStack, type Stack } from '../support/stack.ts';

const MAIN = join(import.meta.dirname, '..', '..', 'proxy', 'main.ts');

/** `kassa-proxy audit verify`, as a process of its own beside the running proxy, on the proxy's settings. */
const verify = (stack: Stack) =>
  runCommand(process.execPath, ['--import', 'tsx', MAIN, 'audit', 'verify'], { env: { ...process.env, ...stack.env } });

/**
 * Someone with the database's credentials changes it behind the proxy's back: a record's content
 * rewritten, or a record deleted, in whichever store the stack runs on.
 */
async function tamper(stack: Stack, seq: number, change: 'edit' | 'remove'): Promise<void> {
  const { env } = stack;
  if (env.KASSA_REDIS_URL) {
    const redis = new Redis(env.KASSA_REDIS_URL);
    try {
      const key = `${env.KASSA_REDIS_PREFIX}audit:${seq}`;
      if (change === 'remove') await redis.del(key);
      else {
        const record = JSON.parse((await redis.get(key))!) as { after: unknown };
        await redis.set(key, JSON.stringify({ ...record, after: { role: 'admin' } }));
      }
    } finally {
      redis.disconnect();
    }
  } else if (env.KASSA_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.KASSA_DATABASE_URL });
    await client.connect();
    try {
      if (change === 'remove') await client.query('DELETE FROM audit_log WHERE seq = $1', [seq]);
      else
        await client.query(
          `UPDATE audit_log SET record = jsonb_set(record::jsonb, '{after}', '{"role":"admin"}')::text WHERE seq = $1`,
          [seq],
        );
    } finally {
      await client.end();
    }
  } else {
    const db = new Database(env.KASSA_DB);
    try {
      if (change === 'remove') db.prepare('DELETE FROM audit_log WHERE seq = ?').run(seq);
      else
        db.prepare(
          `UPDATE audit_log SET record = json_set(record, '$.after', json('{"role":"admin"}')) WHERE seq = ?`,
        ).run(seq);
    } finally {
      db.close();
    }
  }
}

describe(`proxy: the audit trail names who, and an edit or a removal in the database is found (${process.env.KASSA_TEST_STORE ?? 'sqlite'})`, () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack?.stop());

  it('records who did what, with role, request, address, user agent, before and after; never a secret', async () => {
    const invited = await stack.operator('/api/operators', {
      body: { name: 'Ada', email: 'ada-audit@shop.test', role: 'support' },
      headers: { 'User-Agent': 'audit-test/1.0', 'X-Request-Id': 'audit-invite-1' },
    });
    assert.equal(invited.status, 201);
    const id = invited.body.operator.operatorId as string;
    await stack.operator(`/api/operators/${id}`, { method: 'PATCH', body: { role: 'finance' } });
    const token = await stack.operator('/api/operator/tokens', { body: { name: 'nightly', role: 'viewer' } });
    await stack.operator('/api/payments/export');
    const records = (await stack.operator('/api/audit?limit=10')).body.records as Json[];
    const byAction = (action: string) => records.find((record) => record.action === action)!;
    const invite = byAction('operator.invited');
    assert.deepEqual(invite.actor, {
      operatorId: stack.admin.operatorId,
      name: 'Test Admin',
      role: 'admin',
      via: 'api',
    });
    assert.deepEqual(invite.target, { type: 'operator', id });
    assert.equal(invite.requestId, 'audit-invite-1');
    assert.equal(invite.userAgent, 'audit-test/1.0');
    assert.match(invite.ip, /127\.0\.0\.1/);
    assert.deepEqual(invite.after, { name: 'Ada', email: 'ada-audit@shop.test', role: 'support', state: 'invited' });
    const changed = byAction('operator.role_changed');
    assert.equal(changed.before.role, 'support');
    assert.equal(changed.after.role, 'finance');
    assert.ok(byAction('payments.exported'));
    assert.equal(byAction('token.created').after.role, 'viewer');
    const text = JSON.stringify(records);
    assert.ok(!text.includes(token.body.token) && !text.includes(stack.admin.token), 'no secret in the audit');
    assert.ok(!text.includes(invited.body.invitationUrl.split('#')[1]), 'nor the invitation');
    // Only admins read it.
    const viewer = await stack.addOperator('viewer');
    assert.equal((await as(stack.proxy.origin, viewer)('/api/audit')).body.permission, 'audit:read');
  });

  it('the export is the chain, oldest first, hashes included; the export is audited itself', async () => {
    const ndjson = await stack.operator('/api/audit/export');
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; prevHash: string; hash: string });
    assert.deepEqual(
      lines.map((line) => line.seq),
      lines.map((_, index) => index + 1),
    );
    for (const [index, line] of lines.entries()) if (index > 0) assert.equal(line.prevHash, lines[index - 1]!.hash);
    const csv = await stack.operator('/api/audit/export?format=csv');
    assert.match(csv.text, /^seq,at,actor,role,via,action,target,requestId,ip,before,after,hash\r\n1,/);
    assert.equal((await stack.operator('/api/audit?action=audit.exported')).body.records.length, 2);
  });

  it('kassa-proxy audit verify: the chain verifies; an edited record and a removed one are reported, exit code 1', async () => {
    await stack.operator('/api/operators', { body: { name: 'Grace', email: 'grace-audit@shop.test', role: 'viewer' } });
    const clean = await verify(stack);
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /The audit trail verifies: \d+ records/);

    await tamper(stack, 2, 'edit');
    const edited = await verify(stack);
    assert.equal(edited.status, 1);
    assert.match(edited.stderr, /record 2 was edited/);

    await tamper(stack, 2, 'remove');
    const removed = await verify(stack);
    assert.equal(removed.status, 1);
    assert.match(removed.stderr, /record 2 was removed/);
  });

  it('kassa-proxy audit verify reports the last record removed too', async () => {
    const fresh = await startStack({ reuseSandbox: stack.sandbox });
    try {
      await fresh.operator('/api/operators', { body: { name: 'Lin', email: 'lin-audit@shop.test', role: 'viewer' } });
      const last = (await fresh.operator('/api/audit?limit=1')).body.records[0].seq as number;
      assert.equal((await verify(fresh)).status, 0);
      await tamper(fresh, last, 'remove');
      const truncated = await verify(fresh);
      assert.equal(truncated.status, 1);
      assert.match(truncated.stderr, new RegExp(`record ${last} was removed`));
    } finally {
      await fresh.stop();
    }
  });
});

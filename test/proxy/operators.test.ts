import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { runCommand } from '../../proxy/commands.ts';
import { http } from '../support/http.ts';
import { addOperatorByCommand, as, deviceToken, type TestOperator } from '../support/operators.ts';
import { startStack, type Stack } from '../support/stack.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('proxy: operators as people (credentials, permissions, device sign-in)', () => {
  let stack: Stack;
  let viewer: TestOperator;
  const oldToken = `op_${randomBytes(16).toString('hex')}`;

  before(async () => {
    stack = await startStack({ env: { KASSA_OPERATOR_TOKEN: oldToken } });
    viewer = await stack.addOperator('viewer');
  });
  after(() => stack?.stop());

  it('KASSA_OPERATOR_TOKEN opens no operator route any more, and start says so', async () => {
    for (const path of ['/api/payments', '/api/orders', '/api/health', '/api/operator/me']) {
      const answer = await http(`${stack.proxy.origin}${path}`, { headers: { Authorization: `Bearer ${oldToken}` } });
      assert.equal(answer.status, 401, path);
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer realm="Kassa operator"/);
    }
    assert.ok(stack.logs.some((line) => line.includes('KASSA_OPERATOR_TOKEN is set but opens nothing')));
    assert.ok(!stack.logs.some((line) => line.includes(oldToken)), 'the old token is never logged');
  });

  it('a viewer reads, and is refused what their role lacks with a 403 that names the permission', async () => {
    const call = as(stack.proxy.origin, viewer);
    assert.equal((await call('/api/payments')).status, 200);
    const refused = await call('/api/payments/export');
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      error: 'This needs the permission payments:export; your role viewer does not have it',
      permission: 'payments:export',
    });
    const metrics = (await stack.operator('/metrics')).text;
    assert.match(metrics, /kassa_operator_refusals_total\{permission="payments:export"\} [1-9]/);
  });

  it('GET /api/operator/me says who is calling, with which role, permissions and credential', async () => {
    const me = await as(stack.proxy.origin, viewer)('/api/operator/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.operatorId, viewer.operatorId);
    assert.equal(me.body.role, 'viewer');
    assert.deepEqual(me.body.permissions, [
      'payments:read',
      'orders:read',
      'purchases:read',
      'events:read',
      'links:read',
    ]);
    assert.equal(me.body.credential.kind, 'api');
    assert.equal(me.body.csrfToken, null);
    assert.ok(Date.parse(me.body.credential.expiresAt) > Date.now() + 80 * 86_400_000, 'API tokens last 90 days');
  });

  it('a suspended owner’s tokens stop at once, and a lowered role caps them', async () => {
    const person = await stack.addOperator('finance');
    const store = stack.proxy.services.store.operators;
    const call = as(stack.proxy.origin, person);
    assert.equal((await call('/api/payments/export')).status, 200);
    let record = (await store.operatorById(person.operatorId))!;
    await store.updateOperator(person.operatorId, record.revision, { role: 'viewer', updatedAt: Date.now() });
    const capped = await call('/api/payments/export');
    assert.equal(capped.status, 403, 'the token acts with the lowered role');
    assert.equal((await call('/api/operator/me')).body.role, 'viewer');
    record = (await store.operatorById(person.operatorId))!;
    await store.updateOperator(person.operatorId, record.revision, { state: 'suspended', updatedAt: Date.now() });
    assert.equal((await call('/api/payments')).status, 401);
  });

  it('malformed, unknown and web-session secrets sent as bearer tokens are refused alike', async () => {
    for (const token of [
      'kassa_pat_',
      `kassa_pat_${'A'.repeat(43)}`,
      `kassa_web_${'A'.repeat(43)}`,
      viewer.token.slice(0, -1),
      `${viewer.token}x`,
    ]) {
      const answer = await http(`${stack.proxy.origin}/api/payments`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.equal(answer.status, 401, token);
    }
  });

  it('a web session: its cookie reads; a write needs its CSRF token and the proxy’s own Origin', async () => {
    const { operators, store } = stack.proxy.services;
    const person = (await store.operators.operatorById(viewer.operatorId))!;
    const { secret } = await operators.credentials.issue({ operator: person, kind: 'web' });
    const cookie = { Cookie: `__Host-kassa_session=${secret}` };
    const origin = stack.proxy.origin;
    const me = await http(`${origin}/api/operator/me`, { headers: cookie });
    assert.equal(me.status, 200);
    assert.equal(me.body.credential.kind, 'web');
    assert.ok(Date.parse(me.body.credential.idleExpiresAt) <= Date.now() + 30 * 60_000, 'idle after 30 minutes');
    const csrf = me.body.csrfToken as string;
    assert.match(csrf, /^[A-Za-z0-9_-]{43}$/);
    const write = (headers: Record<string, string>) =>
      http(`${origin}/operator/device/approve`, { body: { user_code: 'BCDF-GHJK', approve: true }, headers });
    assert.equal((await write(cookie)).status, 403, 'no CSRF token');
    const wrong = `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await write({ ...cookie, 'X-Kassa-CSRF': wrong })).status, 403, 'a wrong one');
    assert.equal((await write({ ...cookie, 'X-Kassa-CSRF': csrf, Origin: 'https://evil.example' })).status, 403);
    assert.equal(
      (await write({ ...cookie, 'X-Kassa-CSRF': csrf, Origin: origin })).status,
      404,
      'through to the route',
    );
    // A session's secret is a cookie's only: as a bearer token it opens nothing.
    assert.equal(
      (await http(`${origin}/api/operator/me`, { headers: { Authorization: `Bearer ${secret}` } })).status,
      401,
    );
  });

  it('device sign-in (RFC 8628): pending, slow_down, approved by a signed-in operator, one token, signed out', async () => {
    const origin = stack.proxy.origin;
    const code = await http(`${origin}/operator/device/code`, {
      raw: 'client_name=Kassa+extension+on+Chromium',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(code.status, 200);
    assert.match(code.body.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(code.body.verification_uri, `${origin}/operator/device`);
    assert.equal(code.body.verification_uri_complete, `${origin}/operator/device?user_code=${code.body.user_code}`);
    assert.equal(code.body.interval, 5);
    assert.equal(code.body.expires_in, 600);
    const poll = () =>
      http(`${origin}/operator/device/token`, {
        raw: new URLSearchParams({ grant_type: GRANT, device_code: code.body.device_code }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    assert.equal((await poll()).body.error, 'authorization_pending');
    const tooSoon = await poll();
    assert.equal(tooSoon.body.error, 'slow_down');
    assert.equal(tooSoon.headers.get('cache-control'), 'no-store');
    // Typed as people read it: lower case, without the dash.
    const approved = await as(origin, viewer)('/operator/device/approve', {
      body: { user_code: code.body.user_code.toLowerCase().replace('-', ''), approve: true },
    });
    assert.equal(approved.status, 200);
    assert.equal(approved.body.clientName, 'Kassa extension on Chromium');
    const again = await as(origin, viewer)('/operator/device/approve', {
      body: { user_code: code.body.user_code, approve: true },
    });
    assert.equal(again.status, 409);
    const token = await poll();
    assert.equal(token.status, 200);
    assert.match(token.body.access_token, /^kassa_dev_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(token.body.operator, { name: viewer.name, email: viewer.email, role: 'viewer' });
    assert.equal((await poll()).body.error, 'invalid_grant', 'the token is given once');
    const device = as(origin, { headers: { Authorization: `Bearer ${token.body.access_token}` } });
    const me = await device('/api/operator/me');
    assert.equal(me.body.operatorId, viewer.operatorId);
    assert.equal(me.body.credential.kind, 'device');
    assert.equal(me.body.credential.name, 'Kassa extension on Chromium');
    assert.equal((await device('/api/operator/me/credential', { method: 'DELETE' })).status, 204);
    assert.equal((await device('/api/operator/me')).status, 401, 'signed out: it stops at once');
  });

  it('device sign-in: a denied code is access_denied; unknown codes and other grants are refused', async () => {
    const origin = stack.proxy.origin;
    const code = (await http(`${origin}/operator/device/code`, { body: {} })).body;
    const denied = await as(origin, viewer)('/operator/device/approve', {
      body: { user_code: code.user_code, approve: false },
    });
    assert.equal(denied.body.state, 'denied');
    const poll = (body: Record<string, string>) => http(`${origin}/operator/device/token`, { body });
    assert.equal((await poll({ grant_type: GRANT, device_code: code.device_code })).body.error, 'access_denied');
    assert.equal((await poll({ grant_type: GRANT, device_code: 'nope' })).body.error, 'invalid_grant');
    assert.equal((await poll({ grant_type: 'password', device_code: 'x' })).body.error, 'unsupported_grant_type');
    assert.equal((await poll({ device_code: 'x' })).body.error, 'invalid_request');
    const unknown = await as(origin, viewer)('/operator/device/approve', {
      body: { user_code: 'BCDF-GHJK', approve: true },
    });
    assert.equal(unknown.status, 404);
    assert.equal((await http(`${origin}/operator/device/approve`, { body: { user_code: 'BCDF-GHJK' } })).status, 401);
  });

  it('a device token acts as the person who approved it, with their role', async () => {
    const support = await stack.addOperator('support');
    const token = await deviceToken(stack.proxy.origin, support);
    const device = as(stack.proxy.origin, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal((await device('/api/events')).status, 200);
    assert.equal((await device('/api/payments/export')).body.permission, 'payments:export');
  });

  it('kassa-proxy operators add --token works beside the running proxy, on its store', async () => {
    const made = await addOperatorByCommand(stack.env, 'finance', 'Grace Hopper');
    const me = await as(stack.proxy.origin, made)('/api/operator/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.name, 'Grace Hopper');
    assert.equal(me.body.role, 'finance');
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
    assert.equal(await runCommand(['operators', 'list'], stack.env, io), 0);
    assert.ok(out.some((line) => line.includes(made.operatorId) && line.includes('Grace Hopper')));
    out.length = 0;
    const email = made.email.toUpperCase();
    const again = ['operators', 'add', '--name', 'Twin', '--email', email, '--role', 'viewer'];
    assert.equal(await runCommand(again, stack.env, io), 1, 'one account per e-mail, whatever its case');
    assert.match(out.join('\n'), /exists already/);
    assert.equal(await runCommand(['operators', 'add', '--name', 'X', '--role', 'boss'], stack.env, io), 2);
  });

  it('kassa-proxy operators add without --token prints a one-time invitation link', async () => {
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
    const args = ['operators', 'add', '--name', 'Invited', '--email', 'invited@shop.test', '--role', 'support'];
    assert.equal(await runCommand(args, { ...stack.env, KASSA_PUBLIC_URL: 'https://pay.shop.example' }, io), 0);
    assert.match(out.at(-1)!, /^https:\/\/pay\.shop\.example\/operator\/invite#[A-Za-z0-9_-]{43}$/);
    const invited = await stack.proxy.services.store.operators.operatorByEmail('invited@shop.test');
    assert.equal(invited?.state, 'invited');
  });
});

describe('proxy: the first admin', () => {
  it('a proxy with no admin prints a one-time setup link, never to the log', async () => {
    const printed: string[] = [];
    const stack = await startStack({ proxy: { setupLink: (line) => printed.push(line) } });
    try {
      // The stack made its admin after the start: the link was printed before.
      assert.match(printed.join('\n'), /\/operator\/setup#[A-Za-z0-9_-]{43}/);
      const token = /#([A-Za-z0-9_-]{43})/.exec(printed.join('\n'))![1]!;
      assert.ok(!stack.logs.some((line) => line.includes(token)));
      assert.ok(stack.logs.some((line) => line.includes('one-time setup link was printed on standard error')));
      printed.length = 0;
      await stack.restart();
      assert.deepEqual(printed, [], 'with an admin, no link');
    } finally {
      await stack.stop();
    }
  });
});

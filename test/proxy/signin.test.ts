/**
 * Operators' sign-in over HTTP with a software authenticator: an invitation taken up with a passkey,
 * passkey sign-in and sign-out, the session cookie's attributes, CSRF on every write, refusals in
 * the same words whatever was wrong, the limits on failed sign-ins, the person's own sessions,
 * passkeys and API tokens, the first admin's setup link, and the audit and metrics of each. (The
 * page itself, in Chromium with its virtual authenticator: signin-page.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../proxy/config.ts';
import { startProxy } from '../../proxy/server.ts';
import { http } from '../support/http.ts';
import { as } from '../support/operators.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import {
  asBrowser,
  fromPage,
  invite,
  operatorWithPasskey,
  passkeySignin,
  registerByLink,
  sessionCookieOf,
} from '../support/signin.ts';
import { newKey, SoftAuthenticator } from '../support/soft-authenticator.ts';
import { startStack, type Stack } from '../support/stack.ts';

const REFUSED = { error: 'The passkey did not sign you in' };

/** Each case its own client address (the proxy believes X-Forwarded-For here), so limits stay apart. */
let addresses = 0;
const fromAddress = () => ({ 'X-Forwarded-For': `198.51.100.${++addresses}` });

describe('proxy: operators sign in with passkeys', () => {
  let stack: Stack;
  let origin: string;

  before(async () => {
    stack = await startStack({ env: { KASSA_TRUST_PROXY: '1' } });
    origin = stack.proxy.origin;
  });
  after(() => stack?.stop());

  const signins = async () => (await stack.operator('/metrics')).text;
  /** The audit trail's records of `action`, each as its JSON. */
  const audited = async (action: string) =>
    (await stack.proxy.services.store.audit.list({ action, limit: 1000 }))
      .filter((record) => record.action === action)
      .map((record) => JSON.stringify(record));
  const credentialsOf = async (operatorId: string) =>
    (await stack.proxy.services.store.operators.credentialsOf(operatorId)).length;

  it('an invited operator makes a passkey from the invitation, is signed in, and the link is used', async () => {
    const invited = await invite(stack.proxy, 'finance', 'Ada Lovelace');
    const link = { link: 'invitation', token: invited.token };
    const lookedUp = await fromPage(origin, '/operator/link', link);
    assert.equal(lookedUp.status, 200);
    assert.deepEqual(lookedUp.body.operator, { name: 'Ada Lovelace', email: invited.email, role: 'finance' });
    const authenticator = new SoftAuthenticator(origin);
    const options = await fromPage(origin, '/operator/passkeys/options', { ...link, passkeyName: 'Work laptop' });
    assert.equal(options.status, 200);
    assert.equal(options.body.options.rp.id, '127.0.0.1', 'the RP ID is the loopback request’s host');
    assert.equal(options.body.options.authenticatorSelection.residentKey, 'required');
    assert.equal(options.body.options.authenticatorSelection.userVerification, 'required');
    const made = await fromPage(origin, '/operator/passkeys', {
      response: authenticator.register(options.body.options),
    });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.operator.operatorId, invited.operatorId);

    // The session cookie, attribute by attribute.
    const setCookie = made.headers.getSetCookie().find((line) => line.startsWith('__Host-kassa_session='))!;
    const [pair, ...attributes] = setCookie.split(/;\s*/);
    assert.match(pair!, /^__Host-kassa_session=kassa_web_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      new Set(attributes.map((attribute) => attribute.toLowerCase())),
      new Set(['max-age=43200', 'path=/', 'httponly', 'secure', 'samesite=strict']),
    );
    assert.equal(made.headers.get('cache-control'), 'no-store');
    // 30 minutes idle, 12 hours at most.
    const idle = Date.parse(made.body.idleExpiresAt) - Date.now();
    const absolute = Date.parse(made.body.expiresAt) - Date.now();
    assert.ok(idle > 29 * 60_000 && idle <= 30 * 60_000, `idle ${idle}`);
    assert.ok(absolute > 719 * 60_000 && absolute <= 720 * 60_000, `absolute ${absolute}`);

    const session = { origin, cookie: sessionCookieOf(made)!, csrf: made.body.csrfToken };
    const me = await asBrowser(session)('/api/operator/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.credential.kind, 'web');
    assert.equal(me.body.csrfToken, session.csrf);
    const account = await stack.proxy.services.store.operators.operatorById(invited.operatorId);
    assert.equal(account?.state, 'active');
    const passkeys = await asBrowser(session)('/api/operator/passkeys');
    assert.deepEqual(
      passkeys.body.passkeys.map((passkey: { name: string }) => passkey.name),
      ['Work laptop'],
    );
    assert.equal((await fromPage(origin, '/operator/link', link)).status, 404, 'the invitation is used');
    assert.equal((await audited('operator.activated')).length, 1);
    assert.equal((await audited('passkey.added')).length, 1);
    assert.match(await signins(), /kassa_operator_signins_total\{method="invitation",outcome="ok"\} 1/);
  });

  it('signs in with the passkey, lists the sessions, and signs out', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { operatorId } = await operatorWithPasskey(stack.proxy, authenticator);
    const { answer, session } = await passkeySignin(authenticator, {}, fromAddress());
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.operator.operatorId, operatorId);
    const browser = asBrowser(session!);
    const sessions = await browser('/api/operator/sessions');
    assert.equal(sessions.status, 200);
    assert.equal(sessions.body.credentials.length, 2, 'the invitation’s session and this one');
    assert.deepEqual(
      sessions.body.credentials.map((each: { current: boolean; kind: string }) => [each.kind, each.current]),
      [
        ['web', true],
        ['web', false],
      ],
      'newest first, this one marked',
    );
    assert.equal(sessions.body.credentials[0].ip, '198.51.100.' + addresses);
    const out = await browser('/operator/signout', { method: 'POST' });
    assert.equal(out.status, 204);
    assert.match(
      out.headers.getSetCookie().join('\n'),
      /__Host-kassa_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Strict/,
    );
    assert.equal((await browser('/api/operator/me')).status, 401, 'the session ends at once');
    assert.ok((await audited('signout')).some((line) => line.includes(operatorId)));
    assert.match(await signins(), /kassa_operator_signins_total\{method="passkey",outcome="ok"\} [1-9]/);
  });

  it('refuses with the same words an unknown passkey, another key’s signature, a replayed answer, a counter gone back, an unverified person, another origin and a suspended account', async () => {
    const cases: Array<[string, (authenticator: SoftAuthenticator, operatorId: string) => Promise<unknown>]> = [
      [
        'unknown passkey',
        async (authenticator) => {
          const stranger = new SoftAuthenticator(origin);
          stranger.register({ challenge: 'x', user: { id: authenticator.credentials[0]!.userHandle } });
          return (await passkeySignin(stranger, {}, fromAddress())).answer;
        },
      ],
      [
        'another key’s signature',
        async (authenticator) => (await passkeySignin(authenticator, { privateKey: newKey() }, fromAddress())).answer,
      ],
      [
        'a replayed answer',
        async (authenticator) => {
          const { answer, assertion } = await passkeySignin(authenticator, {}, fromAddress());
          assert.equal(answer.status, 200, 'the first use signs in');
          return fromPage(origin, '/operator/signin', { response: assertion }, fromAddress());
        },
      ],
      [
        'a counter gone back',
        async (authenticator) => {
          assert.equal((await passkeySignin(authenticator, {}, fromAddress())).answer.status, 200);
          return (await passkeySignin(authenticator, { counter: 1 }, fromAddress())).answer;
        },
      ],
      [
        'an unverified person',
        async (authenticator) => (await passkeySignin(authenticator, { unverified: true }, fromAddress())).answer,
      ],
      [
        'another origin',
        async (authenticator) =>
          (await passkeySignin(authenticator, { origin: 'https://kassa.example.net' }, fromAddress())).answer,
      ],
      [
        'a suspended account',
        async (authenticator, operatorId) => {
          const store = stack.proxy.services.store.operators;
          const account = (await store.operatorById(operatorId))!;
          await store.updateOperator(operatorId, account.revision, { state: 'suspended', updatedAt: Date.now() });
          return (await passkeySignin(authenticator, {}, fromAddress())).answer;
        },
      ],
    ];
    const refusedBefore = Number(
      /signins_total\{method="passkey",outcome="refused"\} (\d+)/.exec(await signins())?.[1] ?? 0,
    );
    for (const [what, attempt] of cases) {
      // Each its own operator, so that no account reaches its limit of failures here.
      const authenticator = new SoftAuthenticator(origin);
      const { operatorId } = await operatorWithPasskey(stack.proxy, authenticator);
      const sessionsBefore = await credentialsOf(operatorId);
      const answer = (await attempt(authenticator, operatorId)) as { status: number; body: unknown; headers: Headers };
      assert.equal(answer.status, 401, what);
      assert.deepEqual(answer.body, REFUSED, what);
      assert.equal(sessionCookieOf(answer as never), undefined, what);
      const made = what === 'a replayed answer' || what === 'a counter gone back' ? 1 : 0;
      assert.equal(await credentialsOf(operatorId), sessionsBefore + made, `${what}: no session made by the refusal`);
    }
    const refusedAfter = Number(/signins_total\{method="passkey",outcome="refused"\} (\d+)/.exec(await signins())?.[1]);
    assert.equal(refusedAfter - refusedBefore, cases.length, 'each refusal counted');
    // The trail says why; the person is told nothing of it.
    for (const why of ['unknown-credential', 'not-verified', 'unknown-challenge', 'not-active'])
      assert.ok(
        (await audited('signin.failed')).some((line) => line.includes(why)),
        why,
      );
  });

  it('limits failed sign-ins per account (5 in 15 minutes, from any address) and per address (20)', async () => {
    const authenticator = new SoftAuthenticator(origin);
    await operatorWithPasskey(stack.proxy, authenticator);
    for (let attempt = 0; attempt < 5; attempt++)
      assert.equal((await passkeySignin(authenticator, { privateKey: newKey() }, fromAddress())).answer.status, 401);
    // The right passkey now, from a fresh address: the account waits.
    const held = (await passkeySignin(authenticator, {}, fromAddress())).answer;
    assert.equal(held.status, 429);
    assert.ok(Number(held.headers.get('retry-after')) > 60, 'about 15 minutes');
    assert.match(held.body.error, /^Too many failed sign-ins; try again in \d+ s$/);

    // One address, many accounts' failures (unknown passkeys): the 21st attempt is held, even a good one.
    const address = fromAddress();
    const stranger = new SoftAuthenticator(origin);
    stranger.register({ challenge: 'x', user: { id: 'x' } });
    for (let attempt = 0; attempt < 20; attempt++)
      assert.equal((await passkeySignin(stranger, {}, address)).answer.status, 401);
    const other = new SoftAuthenticator(origin);
    await operatorWithPasskey(stack.proxy, other);
    assert.equal((await passkeySignin(other, {}, address)).answer.status, 429);
    assert.equal((await passkeySignin(other, {}, fromAddress())).answer.status, 200, 'other addresses are not held');
  });

  it('takes a write with the session cookie only with its CSRF token from the proxy’s own Origin, and sign-in only from its own page', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { session } = await operatorWithPasskey(stack.proxy, authenticator);
    const write = (headers: Record<string, string>) =>
      http(`${origin}/api/operator/tokens`, {
        body: { name: 'x', role: 'viewer' },
        headers: { Cookie: session.cookie, ...headers },
      });
    assert.equal((await write({ Origin: origin })).status, 403, 'no CSRF header');
    assert.equal((await write({ Origin: origin, 'X-Kassa-CSRF': 'not-the-token' })).status, 403, 'a wrong one');
    assert.equal(
      (await write({ Origin: 'https://evil.example', 'X-Kassa-CSRF': session.csrf })).status,
      403,
      'another Origin',
    );
    assert.equal((await write({ Origin: origin, 'X-Kassa-CSRF': session.csrf })).status, 201);
    assert.equal(
      (await http(`${origin}/api/operator/tokens`, { headers: { Cookie: session.cookie } })).status,
      200,
      'reads need no token',
    );
    for (const path of [
      '/operator/signin/options',
      '/operator/signin',
      '/operator/link',
      '/operator/passkeys/options',
      '/operator/passkeys',
    ]) {
      assert.equal(
        (await http(`${origin}${path}`, { method: 'POST', body: {} })).status,
        403,
        `${path} without Origin`,
      );
      const foreign = await http(`${origin}${path}`, {
        method: 'POST',
        body: {},
        headers: { Origin: 'https://evil.example' },
      });
      assert.equal(foreign.status, 403, `${path} from another Origin`);
    }
  });

  it('personal API tokens: a role at most the person’s, shown once, used, listed without the secret, revoked', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { session } = await operatorWithPasskey(stack.proxy, authenticator, 'support');
    const browser = asBrowser(session);
    const above = await browser('/api/operator/tokens', { body: { name: 'too much', role: 'finance' } });
    assert.equal(above.status, 403);
    assert.match(above.body.error, /cannot be above yours \(support\)/);
    const made = await browser('/api/operator/tokens', {
      body: { name: 'Nightly export', role: 'viewer', expiresInDays: 7 },
    });
    assert.equal(made.status, 201);
    assert.match(made.body.token, /^kassa_pat_[A-Za-z0-9_-]{43}$/);
    const expiresIn = Date.parse(made.body.credential.expiresAt) - Date.now();
    assert.ok(expiresIn > 6.9 * 86_400_000 && expiresIn <= 7 * 86_400_000);
    const asToken = as(origin, { headers: { Authorization: `Bearer ${made.body.token}` } });
    assert.equal((await asToken('/api/operator/me')).body.role, 'viewer');
    assert.equal((await asToken('/api/payments/export')).status, 403, 'the token acts as a viewer');
    const listed = await browser('/api/operator/tokens');
    assert.deepEqual(
      listed.body.credentials.map((token: { name: string }) => token.name),
      ['Nightly export'],
    );
    assert.ok(!listed.text.includes(made.body.token), 'never the secret again');
    assert.equal(
      (await browser(`/api/credentials/${made.body.credential.credentialId}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal((await asToken('/api/operator/me')).status, 401, 'revoked at once');
    assert.deepEqual(
      (await browser('/api/operator/tokens')).body.credentials.map((token: { live: boolean }) => token.live),
      [false],
    );
    // Someone else's credential is not theirs to revoke (they may not manage sessions): as if it did not exist.
    const admins = (await stack.operator('/api/operator/me')).body.credential.credentialId;
    assert.equal((await browser(`/api/credentials/${admins}`, { method: 'DELETE' })).status, 404);
    assert.equal((await stack.operator('/api/operator/me')).status, 200);
    assert.ok((await audited('token.created')).length >= 1 && (await audited('token.revoked')).length >= 1);
  });

  it('passkeys: another one added, one removed, never the last', async () => {
    const laptop = new SoftAuthenticator(origin);
    const { session } = await operatorWithPasskey(stack.proxy, laptop);
    const browser = asBrowser(session);
    const options = await browser('/api/operator/passkeys/options', { body: { passkeyName: 'Security key' } });
    assert.equal(options.status, 200);
    assert.deepEqual(
      options.body.options.excludeCredentials.map((each: { id: string }) => each.id),
      [laptop.credentials[0]!.id],
      'the person’s passkeys are excluded',
    );
    const key = new SoftAuthenticator(origin);
    const added = await browser('/api/operator/passkeys', { body: { response: key.register(options.body.options) } });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.name, 'Security key');
    assert.equal((await passkeySignin(key, {}, fromAddress())).answer.status, 200, 'the new one signs in');
    assert.equal(
      (await browser(`/api/operator/passkeys/${laptop.credentials[0]!.id}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal((await passkeySignin(laptop, {}, fromAddress())).answer.status, 401, 'the removed one does not');
    const last = await browser(`/api/operator/passkeys/${key.credentials[0]!.id}`, { method: 'DELETE' });
    assert.equal(last.status, 409);
    assert.equal(last.body.details.problem, 'last-passkey');
    // A passkey made on options another person asked for is not added.
    const otherOptions = await browser('/api/operator/passkeys/options', { body: { passkeyName: 'Mine' } });
    const someone = await operatorWithPasskey(stack.proxy, new SoftAuthenticator(origin));
    const stolen = await asBrowser(someone.session)('/api/operator/passkeys', {
      body: { response: new SoftAuthenticator(origin).register(otherOptions.body.options) },
    });
    assert.equal(stolen.status, 400);
  });

  it('the first admin’s setup link makes the admin with their passkey, once, and only while there is no admin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-setup-'));
    const printed: string[] = [];
    // A store of its own, with no admin: a file, (on Redis) a prefix, or (on PostgreSQL) a database.
    const own = {
      KASSA_DB: join(dir, 'kassa.db'),
      ...(stack.env.KASSA_REDIS_PREFIX ? { KASSA_REDIS_PREFIX: `setup-${Date.now()}:` } : {}),
      ...(stack.env.KASSA_DATABASE_URL ? { KASSA_DATABASE_URL: await (await sharedPostgres()).createDatabase() } : {}),
    };
    const fresh = await startProxy(loadConfig({ ...stack.env, ...own }), {
      logSink: () => undefined,
      setupLink: (line) => printed.push(line),
    });
    try {
      const token = /\/operator\/setup#([A-Za-z0-9_-]{43})/.exec(printed.join('\n'))?.[1];
      assert.ok(token, 'the link is printed');
      const freshOrigin = fresh.origin;
      const lookedUp = await fromPage(freshOrigin, '/operator/link', { link: 'setup', token });
      assert.deepEqual([lookedUp.status, lookedUp.body.operator], [200, null]);
      const authenticator = new SoftAuthenticator(freshOrigin);
      const request = { link: 'setup', token, name: 'Grace Hopper', email: 'Grace@Shop.test', passkeyName: 'Laptop' };
      const session = await registerByLink(freshOrigin, authenticator, request);
      const me = await asBrowser(session)('/api/operator/me');
      assert.deepEqual([me.body.name, me.body.email, me.body.role], ['Grace Hopper', 'grace@shop.test', 'admin']);
      const again = await fromPage(freshOrigin, '/operator/passkeys/options', request);
      assert.equal(again.status, 404, 'the link is used');
      const second = await fresh.services.operators.accounts.setupToken();
      assert.equal(second, undefined, 'no other setup link while there is an admin');
    } finally {
      await fresh.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * fast-check on the sign-in and device routes: whatever a client sends (bodies, headers, queries),
 * the proxy answers without a 5xx, every refusal is `{error}`, and bad input makes nothing: no
 * operator, credential, passkey, invitation use or device sign-in appears or changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { anyValue, checkedSender, FUZZ_RUNS, rawBody } from '../support/arbitraries.ts';
import { http } from '../support/http.ts';
import { fromPage, invite, operatorWithPasskey } from '../support/signin.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { startStack, type Stack } from '../support/stack.ts';

/** What a bad request must not make: the operators' records, counted where the store keeps them. */
const RECORDS = {
  operators: ['operators', 'operator:'],
  credentials: ['operator_credentials', 'credential:'],
  passkeys: ['operator_passkeys', 'passkey:'],
  invitations: ['operator_invitations', 'invitation:'],
  devices: ['device_authorizations', 'device:'],
} as const;

describe('proxy: fast-check on sign-in and device routes (no 5xx, nothing made by bad input)', () => {
  let stack: Stack;
  let origin: string;
  let redis: Redis | undefined;
  let postgres: pg.Client | undefined;
  let invitation: string;
  let authenticator: SoftAuthenticator;
  let assertion: Record<string, unknown>;
  let registration: Record<string, unknown>;

  /** How many records of each kind there are, read one after another (one PostgreSQL client runs one query at a time). */
  const counts = async (): Promise<Record<keyof typeof RECORDS, number>> => {
    const found: Partial<Record<keyof typeof RECORDS, number>> = {};
    for (const [name, [table, key]] of Object.entries(RECORDS) as Array<
      [keyof typeof RECORDS, readonly [string, string]]
    >) {
      if (redis) found[name] = (await redis.keys(`${stack.env.KASSA_REDIS_PREFIX}${key}*`)).length;
      else if (postgres) found[name] = Number((await postgres.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      else {
        const db = new Database(stack.env.KASSA_DB, { readonly: true });
        try {
          found[name] = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
        } finally {
          db.close();
        }
      }
    }
    return found as Record<keyof typeof RECORDS, number>;
  };
  const states = async () =>
    (await stack.proxy.services.store.operators.listOperators()).map(
      (operator) => `${operator.operatorId}:${operator.state}`,
    );

  /** Sends and checks the answer: never a 5xx; a refusal is `{error}`. */
  const checked = checkedSender(() => origin);
  /** A POST from the sign-in page (its Origin), checked as every fuzz suite checks an answer. */
  const send = (path: string, raw: string, headers: Record<string, string> = {}) =>
    checked(path, { raw, headers: { Origin: origin, ...headers } });
  /** A client address per run, so the limits on failed sign-ins are not what answers. */
  let runs = 0;
  const address = () => ({ 'X-Forwarded-For': `203.0.113.${++runs % 250}`, 'X-Request-Id': `fuzz-${runs}` });

  /** Fields an answer cannot do without: each changed (or dropped) makes it not the authenticator's any more. */
  const ESSENTIAL = [['id'], ['rawId'], ['type'], ['response', 'clientDataJSON'], ['response', 'signature']];
  /** A valid body with one essential field of its `response`, at any depth, replaced by anything or dropped. */
  const mutation = (paths: string[][]) =>
    fc.record({ path: fc.constantFrom(...paths), value: anyValue, drop: fc.boolean() });
  const mutate = (
    valid: Record<string, unknown>,
    { path, value, drop }: { path: string[]; value: unknown; drop: boolean },
  ) => {
    const copy = structuredClone(valid);
    let at = copy.response as Record<string, unknown>;
    for (const step of path.slice(0, -1)) at = at[step] as Record<string, unknown>;
    if (drop) delete at[path.at(-1)!];
    else at[path.at(-1)!] = value;
    return JSON.stringify(copy);
  };

  before(async () => {
    stack = await startStack({ env: { KASSA_TRUST_PROXY: '1' } });
    origin = stack.proxy.origin;
    if (stack.env.KASSA_REDIS_URL) redis = new Redis(stack.env.KASSA_REDIS_URL);
    if (stack.env.KASSA_DATABASE_URL) {
      postgres = new pg.Client({ connectionString: stack.env.KASSA_DATABASE_URL });
      await postgres.connect();
    }
    invitation = (await invite(stack.proxy, 'viewer')).token;
    // A passkey the proxy knows (its operator signed in once), and an answer of a new one on live options.
    authenticator = new SoftAuthenticator(origin);
    await operatorWithPasskey(stack.proxy, authenticator);
    const options = await fromPage(origin, '/operator/passkeys/options', {
      link: 'invitation',
      token: (await invite(stack.proxy, 'viewer')).token,
      passkeyName: 'x',
    });
    registration = { response: new SoftAuthenticator(origin).register(options.body.options) };
    assertion = { response: authenticator.assert({ challenge: 'used-nowhere' }) };
  });
  after(async () => {
    redis?.disconnect();
    await postgres?.end();
    await stack?.stop();
  });

  it('POST /operator/signin: any body, and a fresh answer with an essential field changed, signs nobody in', async () => {
    const before = await counts();
    const freshAnswer = async () => {
      const options = await fromPage(origin, '/operator/signin/options');
      return { response: authenticator.assert(options.body.options) };
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody(assertion).map((raw) => async () => raw),
          mutation([...ESSENTIAL, ['response', 'authenticatorData']]).map(
            (change) => async () => mutate(await freshAnswer(), change),
          ),
        ),
        async (body) => {
          const answer = await send('/operator/signin', await body(), address());
          assert.ok([400, 401, 429].includes(answer.status), `${answer.status} ${answer.text}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.deepEqual(await counts(), before, 'no session was made');
  });

  it('POST /operator/link, /operator/passkeys/options and /operator/passkeys: nothing made, no link used', async () => {
    const before = await counts();
    const operators = await states();
    const linkRequest = { link: 'invitation', token: invitation, passkeyName: 'Laptop' };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ link: 'invitation', token: invitation }).map((raw) => ['/operator/link', raw] as const),
          fc
            .oneof(rawBody(linkRequest), rawBody({ ...linkRequest, link: 'setup', name: 'A', email: 'a@shop.test' }))
            .map((raw) => ['/operator/passkeys/options', raw] as const),
          fc
            .oneof(
              // Bad input only: rawBody gives the valid body itself now and then (an absent field dropped).
              rawBody(registration).filter((raw) => raw !== JSON.stringify(registration)),
              mutation([...ESSENTIAL.slice(0, 4), ['response', 'attestationObject']]).map((change) =>
                mutate(registration, change),
              ),
            )
            .map((raw) => ['/operator/passkeys', raw] as const),
        ),
        async ([path, raw]) => {
          await send(path, raw, address());
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.deepEqual(await counts(), before, 'no operator, credential, passkey or link use');
    assert.deepEqual(await states(), operators, 'nobody activated');
  });

  it('the device routes: code, token and approve; a bad body makes and decides nothing', async () => {
    const before = await counts();
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    const code = await http(`${origin}/operator/device/code`, { body: { client_name: 'Fuzz' } });
    const pending = { ...before, devices: before.devices + 1 };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ client_name: 'Kassa extension' }).map((raw) => ['/operator/device/code', raw] as const),
          rawBody({ grant_type: grant, device_code: 'x'.repeat(43) }).map(
            (raw) => ['/operator/device/token', raw] as const,
          ),
          rawBody({ user_code: 'BCDF-GHJK', approve: true }).map((raw) => ['/operator/device/approve', raw] as const),
        ),
        async ([path, raw]) => {
          const headers = path === '/operator/device/approve' ? stack.admin.headers : {};
          const answer = await send(path, raw, headers);
          if (path === '/operator/device/code' && answer.status === 200)
            // A valid request makes its one device sign-in; forget it for the count.
            pending.devices++;
          else assert.ok(answer.status >= 400, `${path} ${raw.slice(0, 100)} → ${answer.status}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.deepEqual(await counts(), pending, 'only valid code requests made anything');
    const poll = await http(`${origin}/operator/device/token`, {
      body: { grant_type: grant, device_code: code.body.device_code },
    });
    assert.equal(poll.body.error, 'authorization_pending', 'the real sign-in still waits, undecided');
  });

  it('the pages: any query, language and cookie', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/operator', '/operator/device', '/operator/invite', '/operator/setup'),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 200 }).map((value) => value.replace(/[^\t\x20-\x7e]/g, '')),
        async (path, lang, userCode, cookie) => {
          const query = new URLSearchParams({ lang, user_code: userCode });
          // On localhost: on 127.0.0.1 every page is a redirect there (where browsers allow passkeys).
          const answer = await http(`${origin.replace('127.0.0.1', 'localhost')}${path}?${query}`, {
            headers: {
              Cookie: `kassa_lang=${encodeURIComponent(lang)}; __Host-kassa_session=${cookie}`,
              'Accept-Language': lang,
            },
          });
          assert.ok([200, 404].includes(answer.status), `${path}?${query} → ${answer.status}`);
          assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});

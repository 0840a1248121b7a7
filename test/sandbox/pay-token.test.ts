import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decode, verify } from 'hono/jwt';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { tokenErrorSchema, tokenResponseSchema } from '../../schemas/pay.ts';
import { http } from '../support/http.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

describe('sandbox: POST /v1/auth/token', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  const exchange = (body: unknown) => http(`${sandbox.pay}/v1/auth/token`, { body });
  const newKey = async (body: Record<string, unknown> = {}) =>
    (await client.control('/keys', body)).body as { keyId: string; clientSecret: string };

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
  });
  after(() => sandbox.stop());

  it('exchanges a client secret for an HS256 JWT valid for 3600 s, echoing the environment', async () => {
    const response = await exchange({ grant_type: 'client_credentials', client_secret: sandbox.clientSecret });
    assert.equal(response.status, 200);
    const token = tokenResponseSchema.parse(response.body);
    assert.equal(token.token_type, 'Bearer');
    assert.equal(token.expires_in, 3600);
    assert.equal(token.environment, 'sandbox');
    const { header, payload } = decode(token.access_token);
    assert.equal(header.alg, 'HS256');
    assert.equal(payload.sub, sandbox.keyId);
    assert.equal((payload.exp as number) - (payload.iat as number), 3600);
    // Signed with the emulator's own key: a guessed key does not verify it.
    await assert.rejects(verify(token.access_token, 'not-the-key', 'HS256'));
  });

  it('refuses grant types other than client_credentials', async () => {
    const response = await exchange({ grant_type: 'password', client_secret: sandbox.clientSecret });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: 'unsupported_grant_type',
      error_description: "Only 'client_credentials' grant type is supported",
    });
  });

  it('answers malformed bodies with invalid_request', async () => {
    const notJson = await http(`${sandbox.pay}/v1/auth/token`, {
      raw: '{grant_type',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.error, 'invalid_request');
    const array = await exchange([1, 2]);
    assert.equal(array.status, 400);
    assert.equal(array.body.error, 'invalid_request');
  });

  it('answers 401 invalid_client for unknown and missing secrets', async () => {
    for (const body of [
      { grant_type: 'client_credentials', client_secret: 'cs_sandbox_nope' },
      { grant_type: 'client_credentials' },
    ]) {
      const response = await exchange(body);
      assert.equal(response.status, 401);
      assert.deepEqual(tokenErrorSchema.parse(response.body), {
        error: 'invalid_client',
        error_description: 'Invalid client credentials',
      });
    }
  });

  it('keeps live keys inactive until approved, then issues live tokens', async () => {
    const live = await newKey({ environment: 'live', webhookUrl: 'https://merchant.example/hooks/abc' });
    assert.match(live.clientSecret, /^cs_live_/);
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: live.clientSecret })).status, 401);
    const approved = await client.control(`/keys/${live.keyId}/approve`, {});
    assert.equal(approved.body.active, true);
    const response = await exchange({ grant_type: 'client_credentials', client_secret: live.clientSecret });
    assert.equal(response.status, 200);
    assert.equal(response.body.environment, 'live');
  });

  it('keeps an old secret working after rotation until it is expired', async () => {
    const key = await newKey();
    const rotated = await client.control(`/keys/${key.keyId}/rotate`, {});
    const newSecret = rotated.body.clientSecret as string;
    assert.notEqual(newSecret, key.clientSecret);
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).status, 200);
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: newSecret })).status, 200);
    const expired = await client.control(`/keys/${key.keyId}/expire-secret`, { clientSecret: key.clientSecret });
    assert.equal(expired.status, 200);
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).status, 401);
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: newSecret })).status, 200);
    // The last secret cannot be expired, and a secret of another key is refused.
    assert.equal((await client.control(`/keys/${key.keyId}/expire-secret`, { clientSecret: newSecret })).status, 400);
    assert.equal(
      (await client.control(`/keys/${key.keyId}/expire-secret`, { clientSecret: sandbox.clientSecret })).status,
      400,
    );
  });

  it('refuses revoked keys at once, for new tokens and for tokens already issued', async () => {
    const key = await newKey();
    const token = await client.token(key.clientSecret);
    await client.control(`/keys/${key.keyId}/revoke`, {});
    assert.equal(
      (await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).body.error,
      'invalid_client',
    );
    const read = await client.read(token, crypto.randomUUID());
    assert.equal(read.status, 401);
  });

  it('refuses a key past its expiration date', async () => {
    const key = await newKey({ expiresAt: new Date(Date.now() + 60_000).toISOString() });
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).status, 200);
    await client.control(`/keys/${key.keyId}`, { expiresAt: new Date(Date.now() - 1000).toISOString() }, 'PATCH');
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).status, 401);
    await client.control(`/keys/${key.keyId}`, { expiresAt: null }, 'PATCH');
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: key.clientSecret })).status, 200);
  });

  it('blocks token requests of a frozen account with the reason and the time', async () => {
    const before = Date.now();
    await client.control('/account/freeze', { reason: 'unpaid_invoices' });
    const frozen = Date.now();
    const response = await exchange({ grant_type: 'client_credentials', client_secret: sandbox.clientSecret });
    assert.equal(response.status, 403);
    const body = tokenErrorSchema.parse(response.body);
    assert.equal(body.error, 'account_frozen');
    assert.equal(body.freeze_reason, 'unpaid_invoices');
    const at = Date.parse(body.frozen_at!);
    assert.ok(before <= at && at <= frozen, `frozen at ${body.frozen_at}, when the freeze was asked for`);
    await client.control('/account/unfreeze', {});
    assert.equal(
      (await exchange({ grant_type: 'client_credentials', client_secret: sandbox.clientSecret })).status,
      200,
    );
  });

  it('allows 10 token requests per minute per key, then 429 with Retry-After, then again after the window', async () => {
    const key = await newKey();
    const body = { grant_type: 'client_credentials', client_secret: key.clientSecret };
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await exchange(body)).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429]);
    const limited = await exchange(body);
    assert.equal(limited.body.error, 'rate_limit_exceeded');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // Another key has its own budget.
    const other = await newKey();
    assert.equal((await exchange({ grant_type: 'client_credentials', client_secret: other.clientSecret })).status, 200);
    await client.control('/clock', { advanceSeconds: 61 });
    assert.equal((await exchange(body)).status, 200);
  });
});

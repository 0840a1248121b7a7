import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { checkedSender, FUZZ_RUNS, rawBody, segment, VALID_ORDER } from '../support/arbitraries.ts';
import { http, type HttpResult } from '../support/http.ts';
import type { TestOperator } from '../support/operators.ts';
import { startStack, type Stack } from '../support/stack.ts';

/**
 * Property: whatever reaches the device sign-in and dual control routes (bodies, form fields, ids,
 * queries), the proxy answers without a 5xx, every refusal says why, and a refused request creates
 * nothing: no device authorization, no credential, no approval request, no order, no decision.
 */
describe('proxy: fast-check on device sign-in and dual control (no 5xx, nothing created on bad input)', () => {
  let stack: Stack;
  let finance: TestOperator;
  let pendingId: string;
  /** Calls of the store's writes, counted as they pass through to the store. */
  const writes: Record<string, number> = {};

  const count = (target: object, method: string) => {
    const record = target as Record<string, (...args: unknown[]) => unknown>;
    const original = record[method]!.bind(target);
    writes[method] = 0;
    record[method] = (...args: unknown[]) => {
      writes[method]!++;
      return original(...args);
    };
  };
  const send = checkedSender(() => stack.proxy.origin);
  const ordersMade = async () => ((await stack.control('/metrics')).body['orders.create'] as number | undefined) ?? 0;
  const unchanged = async (what: string, read: () => Promise<unknown>, act: () => Promise<HttpResult>) => {
    const before = JSON.stringify(await read());
    const answer = await act();
    if (answer.status >= 400) assert.equal(JSON.stringify(await read()), before, `${what}: nothing changed`);
    return answer;
  };
  const form = fc
    .dictionary(
      fc.oneof(
        fc.constantFrom('client_name', 'grant_type', 'device_code', 'client_id', 'scope'),
        fc.string({ maxLength: 20 }),
      ),
      fc.string({ maxLength: 120 }),
    )
    .map((fields) => new URLSearchParams(fields).toString());

  before(async () => {
    stack = await startStack();
    finance = await stack.addOperator('finance');
    const { operators, approvals } = stack.proxy.services.store;
    for (const method of ['insertDevice', 'updateDevice', 'insertCredential', 'createOperator'])
      count(operators, method);
    for (const method of ['insert', 'move']) count(approvals, method);
    pendingId = (
      await http(`${stack.proxy.origin}/api/orders`, {
        body: {
          customerName: 'Ada',
          chainId: 31337,
          amount: '5',
          mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          customerOrder: 'fuzz-pending',
          stableCoin: 'eUSD',
        },
        headers: finance.headers,
      })
    ).body.approvalId;
  });
  after(async () => {
    try {
      const still = await stack.operator(`/api/approvals/${pendingId}`);
      assert.equal(still.body.state, 'pending', 'the request nobody could decide is still pending');
    } finally {
      await stack.stop();
    }
  });

  it('POST /operator/device/code: JSON and form bodies; an authorization only for a good one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ client_name: 'Kassa extension' }).map((raw) => ({ raw, type: 'application/json' })),
          form.map((raw) => ({ raw, type: 'application/x-www-form-urlencoded' })),
        ),
        async ({ raw, type }) => {
          const before = writes.insertDevice!;
          const answer = await send('/operator/device/code', { raw, headers: { 'Content-Type': type } });
          assert.equal(writes.insertDevice! - before, answer.status === 200 ? 1 : 0);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('POST /operator/device/token: any body is an RFC error code, and never a credential', async () => {
    const before = writes.insertCredential!;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'x'.repeat(43) }).map(
            (raw) => ({
              raw,
              type: 'application/json',
            }),
          ),
          form.map((raw) => ({ raw, type: 'application/x-www-form-urlencoded' })),
        ),
        async ({ raw, type }) => {
          const answer = await send('/operator/device/token', { raw, headers: { 'Content-Type': type } });
          assert.equal(answer.status, 400);
          assert.match(answer.body.error, /^(invalid_request|invalid_grant|unsupported_grant_type)$/);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(writes.insertCredential, before, 'no device token was issued');
  });

  it('POST /operator/device/approve: any body decides nothing it should not', async () => {
    const before = writes.updateDevice!;
    await fc.assert(
      fc.asyncProperty(rawBody({ user_code: 'BCDF-GHJK', approve: true }), async (raw) => {
        const answer = await send('/operator/device/approve', { raw, headers: finance.headers });
        assert.ok([400, 404].includes(answer.status), `${answer.status}`);
      }),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(writes.updateDevice, before);
  });

  it('money routes: a body refused asks nobody and makes no order', async () => {
    const made = await ordersMade();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        rawBody(VALID_ORDER),
        rawBody({ amount: '2', orderStatus: 'Processing' }),
        segment,
        async (create, update, id) => {
          const before = writes.insert!;
          const asked = await send('/api/orders', {
            raw: create.replace('"fuzz"', `"fuzz-${n++}"`),
            headers: finance.headers,
          });
          assert.equal(writes.insert! - before, asked.status === 202 ? 1 : 0);
          const changed = await send(`/api/orders/${id}`, { method: 'PUT', raw: update, headers: finance.headers });
          assert.notEqual(changed.status, 202, 'no order of that id: nothing to ask about');
        },
      ),
      { numRuns: Math.ceil(FUZZ_RUNS / 2) },
    );
    assert.equal(await ordersMade(), made, 'nothing reached the order service');
  });

  it('approve, reject, cancel and the list: any id, body and query; no decision, no order', async () => {
    const made = await ordersMade();
    const moves = writes.move!;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          segment,
          fc.constant(pendingId),
          segment.map((tail) => `apr_${tail}`),
        ),
        fc.constantFrom('approve', 'reject', 'cancel'),
        rawBody({ reason: 'A reason' }),
        segment,
        async (id, action, raw, query) => {
          // The caller is the requester: they may not approve or reject, and their cancellation needs a well-formed body.
          const answer = await unchanged(
            'the pending request',
            async () => (await stack.operator(`/api/approvals/${pendingId}`)).body.state,
            () =>
              send(`/api/approvals/${id}/${action}`, {
                raw: action === 'cancel' ? `${raw}{` : raw,
                headers: finance.headers,
              }),
          );
          assert.ok(answer.status >= 400, `${action} ${id}: ${answer.status}`);
          await send(`/api/approvals?state=${query}&limit=${query}&cursor=${query}`, {
            method: 'GET',
            headers: finance.headers,
          });
          await send(`/api/approvals/${id}`, { method: 'GET', headers: finance.headers });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(writes.move, moves, 'no request moved');
    assert.equal(await ordersMade(), made);
  });

  it('the team, tokens and audit: bodies and queries; a refused body creates no one and no token', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBody({ name: 'Ada', email: 'ada@shop.test', role: 'viewer' }),
        rawBody({ name: 'script', role: 'admin', expiresInDays: 400 }),
        segment,
        async (invite, token, query) => {
          const people = (await stack.proxy.services.store.operators.listOperators()).length;
          const tokens = writes.insertCredential!;
          const invited = await send('/api/operators', { raw: invite, headers: stack.admin.headers });
          const made = await send('/api/operator/tokens', { raw: token, headers: finance.headers });
          if (invited.status >= 400)
            assert.equal((await stack.proxy.services.store.operators.listOperators()).length, people);
          if (made.status >= 400) assert.equal(writes.insertCredential, tokens);
          await send(`/api/operators/${query}`, { method: 'PATCH', raw: invite, headers: stack.admin.headers });
          await send(`/api/audit?action=${query}&limit=${query}&cursor=${query}&from=${query}`, {
            method: 'GET',
            headers: stack.admin.headers,
          });
        },
      ),
      { numRuns: Math.ceil(FUZZ_RUNS / 2) },
    );
  });
});

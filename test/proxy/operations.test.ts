import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { http } from '../support/http.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

describe('proxy operations: liveness and readiness', () => {
  let stack: Stack;
  const readyz = () => http(`${stack.proxy.origin}/readyz`);
  before(async () => {
    // Tokens live 2 s, so the next token attempt comes quickly after a change upstream.
    stack = await startStack({ sandbox: { tokenLifetimeSeconds: 2 } });
  });
  after(() => stack.stop());

  it('/livez and /healthz answer while the process runs; /readyz once the credentials are usable', async () => {
    assert.deepEqual((await http(`${stack.proxy.origin}/livez`)).body, { ok: true });
    assert.deepEqual((await http(`${stack.proxy.origin}/healthz`)).body, { ok: true });
    const ready = await readyz();
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { ready: true });
  });

  it('a frozen account: 503 account_frozen within one token attempt, 200 again after unfreezing', async () => {
    await stack.control('/account/freeze', { reason: 'unpaid_invoices' });
    const frozen = await eventually(
      async () => {
        const answer = await readyz();
        return answer.status === 503 ? answer : undefined;
      },
      5_000,
      'readiness to see the freeze',
    );
    assert.equal(frozen.body.reason, 'account_frozen');
    assert.equal(frozen.body.freezeReason, 'unpaid_invoices');
    assert.ok(frozen.body.frozenAt);
    assert.equal((await http(`${stack.proxy.origin}/livez`)).status, 200, 'alive all the same');
    await stack.control('/account/unfreeze', {});
    await eventually(async () => ((await readyz()).status === 200 ? true : undefined), 5_000, 'ready again');
  });

  it('a revoked client secret: 503 invalid_client', async () => {
    await stack.control(`/keys/${stack.sandbox.keyId}/revoke`, {});
    const refused = await eventually(
      async () => {
        const answer = await readyz();
        return answer.status === 503 ? answer : undefined;
      },
      5_000,
      'readiness to see the refusal',
    );
    assert.equal(refused.body.reason, 'invalid_client');
    assert.ok(!JSON.stringify(refused.body).includes(stack.config.payClientSecrets[0]!));
  });
});

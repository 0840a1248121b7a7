import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Json } from '../support/http.ts';
import { http } from '../support/http.ts';
import type { TestOperator } from '../support/operators.ts';
import { startStack, type Stack } from '../support/stack.ts';

/**
 * The role table of issue 37 (docs/operators.md), written out here rather than taken from the code, so
 * that a change to proxy/operator/permissions.ts that breaks it fails this test.
 */
const VIEWER = ['payments:read', 'orders:read', 'purchases:read', 'events:read', 'links:read'] as const;
const SUPPORT = [...VIEWER, 'payments:resolve', 'events:redeliver', 'counter:take'] as const;
const FINANCE = [...SUPPORT, 'orders:write', 'purchases:act', 'payments:export', 'links:manage'] as const;
const ROLE_TABLE = {
  viewer: VIEWER,
  support: SUPPORT,
  finance: FINANCE,
  admin: [
    ...FINANCE,
    'operators:manage',
    'sessions:manage',
    'settings:manage',
    'audit:read',
    'destinations:manage',
    'merchant_keys:manage',
  ],
} as const;
type Role = keyof typeof ROLE_TABLE;

/** A path's parameters filled with ids that name nothing: the answer is about the credential, not the record. */
const concrete = (path: string) =>
  path
    .replace('{orderId}', 'ord_none')
    .replace('{purchaseId}', 'pur_00000000000000000000')
    .replace('{eventId}', 'evt_none')
    .replace('{transactionId}', 'tx-none')
    .replace('{approvalId}', 'apr_0000000000000000000000')
    .replace('{operatorId}', 'op_0000000000000000000000')
    .replace('{credentialId}', 'cred_0000000000000000000000');

/** Which roles the table gives a route's permission (`a or b`: either), or every role (`any signed-in operator`). */
function allowed(permission: string): Role[] {
  if (permission.startsWith('any signed-in operator')) return Object.keys(ROLE_TABLE) as Role[];
  const needed = permission.split(' or ');
  return (Object.keys(ROLE_TABLE) as Role[]).filter((role) =>
    needed.some((each) => (ROLE_TABLE[role] as readonly string[]).includes(each)),
  );
}

describe('proxy: every operator route, as the role table says (walked from the OpenAPI document)', () => {
  let stack: Stack;
  let operations: Array<{ method: string; path: string; operationId: string; permission: string }>;

  before(async () => {
    stack = await startStack({ env: { KASSA_ONRAMP_COINS: 'EUR:eEUR' } });
    const document = (await http(`${stack.proxy.origin}/openapi.json`)).body;
    operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => JSON.stringify(operation.security).includes('operatorSession'))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          operationId: operation.operationId as string,
          permission: operation['x-kassa-permission'] as string,
        })),
    );
  });
  after(() => stack?.stop());

  it('the document names a permission for every operator route, and says it in its description', async () => {
    const document = (await http(`${stack.proxy.origin}/openapi.json`)).body;
    assert.ok(operations.length >= 40, `${operations.length} operator routes`);
    for (const { method, path, operationId, permission } of operations) {
      assert.equal(typeof permission, 'string', `${operationId}: x-kassa-permission`);
      const description = document.paths[path][method.toLowerCase()].description as string;
      assert.match(description, /\*\*Permission:\*\* /, `${operationId}: the permission in words`);
    }
    const byId = Object.fromEntries(operations.map((operation) => [operation.operationId, operation.permission]));
    // A few routes the table names outright.
    assert.equal(byId.searchPayments, 'payments:read');
    assert.equal(byId.exportPayments, 'payments:export');
    assert.equal(byId.resolvePayment, 'payments:resolve');
    assert.equal(byId.redeliverEvent, 'events:redeliver');
    assert.equal(byId.createCounterPayment, 'counter:take');
    assert.equal(byId.createOrder, 'orders:write');
    assert.equal(byId.retryPurchaseMint, 'purchases:act');
    assert.equal(byId.inviteOperator, 'operators:manage');
    assert.equal(byId.listOperatorSessions, 'sessions:manage');
    assert.equal(byId.listAudit, 'audit:read');
    assert.equal(byId.approveApproval, 'orders:write or purchases:act');
    assert.equal(byId.getOperatorMe, 'any signed-in operator, for their own account');
  });

  for (const role of Object.keys(ROLE_TABLE) as Role[])
    it(`${role}: each route answers, or is refused with 403 naming the permission, as the table says`, async () => {
      const refusedWrongly: string[] = [];
      for (const { method, path, operationId, permission } of operations) {
        // A fresh person and token for each call: some routes (signing out) end the credential they are called with.
        const caller: TestOperator = await stack.addOperator(role);
        const controller = new AbortController();
        const response = await fetch(`${stack.proxy.origin}${concrete(path)}`, {
          method,
          headers: {
            ...caller.headers,
            ...(method === 'GET' || method === 'DELETE' ? {} : { 'Content-Type': 'application/json' }),
          },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
          signal: controller.signal,
        });
        // Streams stay open: the status is the answer.
        const body = response.headers.get('content-type')?.startsWith('application/json')
          ? await response.json()
          : undefined;
        controller.abort();
        const expected = allowed(permission).includes(role);
        if (expected && response.status === 403) refusedWrongly.push(`${operationId} (${response.status})`);
        if (!expected) {
          assert.equal(response.status, 403, `${role} ${operationId}: refused`);
          assert.equal(body.permission, permission.split(' or ')[0], `${role} ${operationId}: names the permission`);
          assert.match(body.error, new RegExp(`your role ${role} does not have it`));
        }
        assert.ok(response.status < 500, `${role} ${operationId}: ${response.status}`);
      }
      assert.deepEqual(refusedWrongly, [], `${role} may call these`);
    });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, type TestOperator } from '../support/operators.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let orderCount = 0;
const order = (amount = '250') => ({
  customerName: 'Ada',
  chainId: 31337,
  amount,
  mintWallet: WALLET,
  customerOrder: `dual-${++orderCount}-${Date.now()}`,
  stableCoin: 'eUSD',
});

/** Orders the emulated issuer has been asked to make (its own count, not the proxy's word). */
const ordersMade = async (stack: Stack) =>
  ((await stack.control('/metrics')).body['orders.create'] as number | undefined) ?? 0;

describe('proxy: dual control, a second person for money (issue 37)', () => {
  let stack: Stack;
  let maker: TestOperator;
  let checker: TestOperator;
  let viewer: TestOperator;
  let support: TestOperator;

  before(async () => {
    stack = await startStack();
    maker = await stack.addOperator('finance', 'Ada Maker');
    checker = await stack.addOperator('finance', 'Grace Checker');
    viewer = await stack.addOperator('viewer');
    support = await stack.addOperator('support');
  });
  after(() => stack?.stop());

  const ask = (by: TestOperator, body = order()) => as(stack.proxy.origin, by)('/api/orders', { body });
  const decide = (by: TestOperator, approvalId: string, action: 'approve' | 'reject' | 'cancel', body?: unknown) =>
    as(stack.proxy.origin, by)(
      `/api/approvals/${approvalId}/${action}`,
      body === undefined ? { method: 'POST' } : { body },
    );

  it('a mint order reaches the order service only after a second person approves it', async () => {
    const before = await ordersMade(stack);
    const body = order('250');
    const asked = await ask(maker, body);
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.state, 'pending');
    assert.equal(asked.body.kind, 'order.create');
    assert.deepEqual(asked.body.requestedBy, { operatorId: maker.operatorId, name: 'Ada Maker', role: 'finance' });
    assert.equal(asked.body.summary.amount, '250');
    assert.equal(asked.body.summary.wallet, WALLET);
    assert.equal(asked.body.canDecide, false, 'not by the one who asked');
    assert.equal(await ordersMade(stack), before, 'nothing reached the order service');
    const listed = await as(stack.proxy.origin, checker)('/api/approvals?state=pending');
    const mine = listed.body.approvals.find(
      (each: { approvalId: string }) => each.approvalId === asked.body.approvalId,
    );
    assert.equal(mine.canDecide, true, 'the second person may decide it');
    const pending = (await stack.operator('/metrics')).text;
    assert.match(pending, /kassa_operator_approvals_pending [1-9]/);

    const approved = await decide(checker, asked.body.approvalId, 'approve');
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.state, 'executed');
    assert.deepEqual(approved.body.decidedBy, {
      operatorId: checker.operatorId,
      name: 'Grace Checker',
      role: 'finance',
    });
    assert.equal(await ordersMade(stack), before + 1, 'one order, after the approval');
    const made = await stack.operator(`/api/orders/${approved.body.result.orderId}`);
    assert.equal(made.body.customerOrder, body.customerOrder);
    assert.equal(made.body.amount, '250');
    // The audit names both people.
    const trail = (await stack.operator(`/api/audit?targetId=${asked.body.approvalId}`)).body.records as Array<{
      action: string;
      actor: { operatorId: string };
    }>;
    assert.deepEqual(trail.map((record) => [record.action, record.actor.operatorId]).reverse(), [
      ['approval.requested', maker.operatorId],
      ['approval.approved', checker.operatorId],
      ['approval.executed', checker.operatorId],
    ]);
  });

  it('refuses self-approval, a viewer’s and a support agent’s approval; nothing is made', async () => {
    const before = await ordersMade(stack);
    const { approvalId } = (await ask(maker)).body;
    const self = await decide(maker, approvalId, 'approve');
    assert.equal(self.status, 403);
    assert.match(self.body.error, /A second person must approve/);
    for (const who of [viewer, support]) {
      const refused = await decide(who, approvalId, 'approve');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.permission, 'orders:write');
    }
    assert.equal((await decide(maker, approvalId, 'reject', { reason: 'mine' })).status, 403, 'nor rejects it');
    assert.equal(await ordersMade(stack), before);
    assert.equal((await as(stack.proxy.origin, checker)(`/api/approvals/${approvalId}`)).body.state, 'pending');
  });

  it('two approvers racing give one approval and one order', async () => {
    const before = await ordersMade(stack);
    const { approvalId } = (await ask(maker)).body;
    const answers = await Promise.all([
      decide(checker, approvalId, 'approve'),
      decide(stack.admin, approvalId, 'approve'),
    ]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
    assert.equal(answers.find((answer) => answer.status === 200)!.body.state, 'executed');
    assert.equal(await ordersMade(stack), before + 1, 'exactly one order');
    assert.equal((await decide(checker, approvalId, 'approve')).status, 409, 'decided already');
  });

  it('a rejection says why and runs nothing; the requester may cancel theirs, nobody else', async () => {
    const before = await ordersMade(stack);
    const first = (await ask(maker)).body.approvalId as string;
    assert.equal((await decide(checker, first, 'reject', {})).status, 400, 'a reason is required');
    const rejected = await decide(checker, first, 'reject', { reason: 'The customer paid for 25, not 250' });
    assert.equal(rejected.body.state, 'rejected');
    assert.equal(rejected.body.reason, 'The customer paid for 25, not 250');
    assert.equal((await decide(stack.admin, first, 'approve')).status, 409);
    const second = (await ask(maker)).body.approvalId as string;
    assert.equal((await decide(checker, second, 'cancel', {})).status, 403, 'only the requester cancels');
    assert.equal((await decide(maker, second, 'cancel', { reason: 'Wrong wallet' })).body.state, 'cancelled');
    assert.equal(await ordersMade(stack), before);
  });

  it('an order’s change and a lowered role: the approver’s permission is read when they approve', async () => {
    const made = await stack.approved(as(stack.proxy.origin, maker)('/api/orders', { body: order('40') }));
    const orderId = made.body.result.orderId as string;
    const change = await as(stack.proxy.origin, maker)(`/api/orders/${orderId}`, {
      method: 'PUT',
      body: { amount: '400' },
    });
    assert.equal(change.status, 202);
    assert.deepEqual([change.body.summary.amount, change.body.summary.newAmount], ['40', '400']);
    assert.equal((await stack.operator(`/api/orders/${orderId}`)).body.amount, '40', 'unchanged before approval');
    const demoted = await stack.addOperator('finance');
    await stack.operator(`/api/operators/${demoted.operatorId}`, { method: 'PATCH', body: { role: 'support' } });
    assert.equal((await decide(demoted, change.body.approvalId, 'approve')).status, 403);
    assert.equal((await decide(checker, change.body.approvalId, 'approve')).body.result.amount, '400');
    assert.equal((await stack.operator(`/api/orders/${orderId}`)).body.amount, '400');
  });
});

describe('proxy: dual control, expiry and the threshold', () => {
  it('an expired request cannot be approved (410) and makes nothing', async () => {
    const stack = await startStack({ proxy: { approvalTtlMs: 300 } });
    try {
      const maker = await stack.addOperator('finance');
      const before = await ordersMade(stack);
      const asked = await as(stack.proxy.origin, maker)('/api/orders', { body: order() });
      assert.equal(asked.status, 202);
      await eventually(
        async () =>
          (await stack.operator(`/api/approvals/${asked.body.approvalId}`)).body.state === 'expired' || undefined,
        'the request to expire',
      );
      const late = await stack.operator(`/api/approvals/${asked.body.approvalId}/approve`, { method: 'POST' });
      assert.equal(late.status, 410);
      assert.match(late.body.error, /expired/);
      assert.equal(await ordersMade(stack), before);
      const trail = (await stack.operator(`/api/audit?targetId=${asked.body.approvalId}`)).body.records;
      assert.equal(trail[0].action, 'approval.expired');
    } finally {
      await stack.stop();
    }
  });

  it('below KASSA_APPROVAL_THRESHOLD one person suffices (and is audited); at it, two', async () => {
    const stack = await startStack({ env: { KASSA_APPROVAL_THRESHOLD: '100' } });
    try {
      const maker = await stack.addOperator('finance');
      const before = await ordersMade(stack);
      const small = await as(stack.proxy.origin, maker)('/api/orders', { body: order('99.99') });
      assert.equal(small.status, 201, small.text);
      assert.equal(await ordersMade(stack), before + 1);
      const audit = (await stack.operator(`/api/audit?targetId=${small.body.orderId}`)).body.records;
      assert.equal(audit[0].action, 'order.created');
      assert.equal(audit[0].actor.operatorId, maker.operatorId);
      const large = await as(stack.proxy.origin, maker)('/api/orders', { body: order('100') });
      assert.equal(large.status, 202);
      // Raising a small order above the threshold needs two people too.
      const raise = await as(stack.proxy.origin, maker)(`/api/orders/${small.body.orderId}`, {
        method: 'PUT',
        body: { amount: '500' },
      });
      assert.equal(raise.status, 202);
      assert.equal(await ordersMade(stack), before + 1);
    } finally {
      await stack.stop();
    }
  });
});

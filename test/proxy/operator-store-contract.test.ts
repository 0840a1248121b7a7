import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuditTrail } from '../../proxy/operator/audit-trail.ts';
import type { ApprovalRecord } from '../../proxy/state/approvals.ts';
import type { AuditEntry } from '../../proxy/state/audit.ts';
import type { CredentialRecord, DeviceAuthorizationRecord, OperatorRecord } from '../../proxy/state/operators.ts';
import type { Store } from '../../proxy/state/store.ts';
import type { Role } from '../../schemas/operators.ts';
import { STORE_BACKENDS } from '../support/store-backends.ts';
import { passkeyRecord } from '../support/store-records.ts';

const id = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;
const hash = () => randomBytes(32).toString('hex');

const operator = (role: Role = 'viewer', overrides: Partial<OperatorRecord> = {}): OperatorRecord => ({
  operatorId: id('op_'),
  name: 'Ada Lovelace',
  email: `${id('p')}@shop.test`.toLowerCase(),
  role,
  state: 'active',
  createdAt: Date.now(),
  createdBy: 'cli',
  updatedAt: Date.now(),
  revision: 1,
  ssoSubject: null,
  ...overrides,
});

const credential = (operatorId: string, overrides: Partial<CredentialRecord> = {}): CredentialRecord => ({
  credentialId: id('cred_'),
  operatorId,
  kind: 'api',
  tokenHash: hash(),
  name: 'script',
  role: 'viewer',
  createdAt: Date.now(),
  lastUsedAt: null,
  idleExpiresAt: null,
  expiresAt: Date.now() + 86_400_000,
  revokedAt: null,
  ip: '127.0.0.1',
  userAgent: 'test',
  ...overrides,
});

const USER_CODE = 'BCDFGHJKLMNPQRSTVWXZ';
const userCode = () => Array.from(randomBytes(8), (byte) => USER_CODE[byte % USER_CODE.length]).join('');

const device = (overrides: Partial<DeviceAuthorizationRecord> = {}): DeviceAuthorizationRecord => ({
  deviceCodeHash: hash(),
  userCode: userCode(),
  clientName: 'Kassa extension',
  createdAt: Date.now(),
  expiresAt: Date.now() + 600_000,
  interval: 5,
  lastPolledAt: null,
  state: 'pending',
  operatorId: null,
  ip: null,
  userAgent: null,
  revision: 1,
  ...overrides,
});

const person = { operatorId: 'op_requester', name: 'Ada', role: 'finance' as const };
const approval = (overrides: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  approvalId: id('apr_'),
  kind: 'order.create',
  target: null,
  payload: { amount: '250' },
  summary: { amount: '250', coin: 'eUSD' },
  permission: 'orders:write',
  requestedBy: person,
  requestedAt: Date.now(),
  expiresAt: Date.now() + 86_400_000,
  state: 'pending',
  decidedBy: null,
  decidedAt: null,
  reason: null,
  result: null,
  revision: 1,
  ...overrides,
});

const entry = (action: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: Date.now(),
  actor: { operatorId: 'op_actor', name: 'Ada', role: 'admin', via: 'api' },
  action,
  target: { type: 'order', id: 'ord_1' },
  requestId: 'req-1',
  ip: '127.0.0.1',
  userAgent: 'test',
  before: { amount: '1' },
  after: { amount: '2', nested: { b: 1, a: [1, { y: 2, x: 1 }] } },
  ...overrides,
});

/** One contract, every store: operators, approvals and the audit behave alike whichever backend keeps them. */
for (const backend of STORE_BACKENDS) {
  describe(`operator store contract: ${backend.name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await backend.open()));
    after(() => close());

    it('accounts: one per e-mail and per SSO subject; found by id, e-mail and subject; listed oldest first', async () => {
      const ops = store.operators;
      const first = operator('viewer', { createdAt: Date.now() - 1000, ssoSubject: `https://idp.test ${id('')}` });
      const second = operator('support');
      assert.equal(await ops.createOperator(first), 'created');
      assert.equal(await ops.createOperator(second), 'created');
      assert.equal(await ops.createOperator(operator('admin', { email: first.email })), 'email-taken');
      assert.equal(await ops.createOperator(operator('admin', { ssoSubject: first.ssoSubject })), 'sso-taken');
      assert.deepEqual(await ops.operatorById(first.operatorId), first);
      assert.deepEqual(await ops.operatorByEmail(second.email), second);
      assert.deepEqual(await ops.operatorBySsoSubject(first.ssoSubject!), first);
      assert.equal(await ops.operatorById('op_missing'), undefined);
      const listed = (await ops.listOperators()).map((each) => each.operatorId);
      assert.ok(listed.indexOf(first.operatorId) < listed.indexOf(second.operatorId));
    });

    it('a change is compare-and-set on the revision, and never leaves the shop without an active admin', async () => {
      const ops = store.operators;
      const before = await ops.activeAdmins();
      const admin = operator('admin');
      await ops.createOperator(admin);
      assert.equal(await ops.activeAdmins(), before + 1);
      const stale = await ops.updateOperator(admin.operatorId, 7, { role: 'viewer', updatedAt: Date.now() });
      assert.deepEqual(stale, { outcome: 'moved' });
      if (before === 0) {
        // The only admin: neither demoted, suspended nor removed.
        const demoted = await ops.updateOperator(admin.operatorId, 1, { role: 'finance', updatedAt: Date.now() });
        assert.deepEqual(demoted, { outcome: 'last-admin' });
        assert.deepEqual(await ops.updateOperator(admin.operatorId, 1, { state: 'suspended', updatedAt: 1 }), {
          outcome: 'last-admin',
        });
        assert.equal(await ops.removeOperator(admin.operatorId), 'last-admin');
      }
      const renamed = await ops.updateOperator(admin.operatorId, 1, { name: 'Grace', updatedAt: Date.now() });
      assert.equal(renamed.outcome, 'updated');
      assert.equal(renamed.outcome === 'updated' && renamed.operator.revision, 2);
      // Two admins demoting each other at the same moment: one wins, one admin is left.
      const other = operator('admin');
      await ops.createOperator(other);
      const admins = await ops.activeAdmins();
      const everyAdmin = (await ops.listOperators()).filter((each) => each.role === 'admin' && each.state === 'active');
      const outcomes = await Promise.all(
        everyAdmin.map((each) => ops.updateOperator(each.operatorId, each.revision, { role: 'viewer', updatedAt: 1 })),
      );
      assert.equal(outcomes.filter((outcome) => outcome.outcome === 'updated').length, admins - 1);
      assert.equal(outcomes.filter((outcome) => outcome.outcome === 'last-admin').length, 1);
      assert.equal(await ops.activeAdmins(), 1);
    });

    it('removing an operator deletes their credentials, passkeys and invitations', async () => {
      const ops = store.operators;
      const gone = operator('finance');
      await ops.createOperator(gone);
      const token = credential(gone.operatorId);
      await ops.insertCredential(token);
      const key = passkeyRecord({ operatorId: gone.operatorId });
      assert.equal(await ops.insertPasskey(key), true);
      const invitation = hash();
      await ops.insertInvitation({
        tokenHash: invitation,
        purpose: 'invite',
        operatorId: gone.operatorId,
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
        createdBy: 'cli',
      });
      assert.equal(await ops.removeOperator(gone.operatorId), 'removed');
      assert.equal(await ops.removeOperator(gone.operatorId), 'missing');
      assert.equal(await ops.operatorById(gone.operatorId), undefined);
      assert.equal(await ops.operatorByEmail(gone.email), undefined);
      assert.equal(await ops.credentialByHash(token.tokenHash), undefined);
      assert.equal(await ops.passkeyById(key.credentialId), undefined);
      assert.equal(await ops.invitationByHash(invitation, Date.now()), undefined);
      assert.equal(
        await ops.createOperator(operator('viewer', { email: gone.email })),
        'created',
        'the e-mail is free',
      );
    });

    it('credentials: found by their hash with their owner, listed newest first, touched, revoked once', async () => {
      const ops = store.operators;
      const owner = operator('finance');
      await ops.createOperator(owner);
      const older = credential(owner.operatorId, { createdAt: Date.now() - 1000 });
      const newer = credential(owner.operatorId, { kind: 'device', role: null, idleExpiresAt: Date.now() + 5000 });
      await ops.insertCredential(older);
      await ops.insertCredential(newer);
      assert.deepEqual(await ops.credentialByHash(older.tokenHash), { credential: older, operator: owner });
      assert.equal(await ops.credentialByHash(hash()), undefined);
      assert.deepEqual(await ops.credentialById(newer.credentialId), newer);
      assert.deepEqual(
        (await ops.credentialsOf(owner.operatorId)).map((each) => each.credentialId),
        [newer.credentialId, older.credentialId],
      );
      await ops.touchCredential(newer.credentialId, 1234, 99_999);
      const touched = await ops.credentialById(newer.credentialId);
      assert.deepEqual([touched?.lastUsedAt, touched?.idleExpiresAt], [1234, 99_999]);
      assert.deepEqual(await ops.revokeCredential(newer.credentialId, 5678), touched);
      assert.equal(await ops.revokeCredential(newer.credentialId, 9999), undefined, 'revoked once');
      await ops.touchCredential(newer.credentialId, 9999, null);
      assert.equal((await ops.credentialByHash(newer.tokenHash))?.credential.revokedAt, 5678, 'a use never un-revokes');
      const racing = await Promise.all([1, 2, 3].map((at) => ops.revokeCredential(older.credentialId, at)));
      assert.equal(racing.filter(Boolean).length, 1);
    });

    it('invitations: read without using them, used once, expired ones gone', async () => {
      const ops = store.operators;
      const live = hash();
      const expired = hash();
      const now = Date.now();
      for (const [tokenHash, expiresAt] of [
        [live, now + 60_000],
        [expired, now - 1],
      ] as const)
        await ops.insertInvitation({
          tokenHash,
          purpose: 'setup',
          operatorId: null,
          createdAt: now - 10,
          expiresAt,
          createdBy: 'setup',
        });
      assert.equal((await ops.invitationByHash(live, now))?.purpose, 'setup');
      assert.equal(await ops.invitationByHash(expired, now), undefined);
      const taken = await Promise.all([1, 2, 3].map(() => ops.takeInvitation(live, now)));
      assert.equal(taken.filter(Boolean).length, 1, 'one caller gets it');
      assert.equal(await ops.takeInvitation(expired, now), undefined);
    });

    it('passkeys: one per WebAuthn id; a counter moves once from what was read; only their owner deletes one', async () => {
      const ops = store.operators;
      const owner = operator('viewer');
      await ops.createOperator(owner);
      const key = passkeyRecord({ operatorId: owner.operatorId });
      assert.equal(await ops.insertPasskey(key), true);
      assert.equal(await ops.insertPasskey({ ...key, operatorId: 'op_other' }), false);
      assert.deepEqual(await ops.passkeysOf(owner.operatorId), [key]);
      const uses = await Promise.all([5, 6].map((counter) => ops.usePasskey(key.credentialId, 0, counter, 42)));
      assert.deepEqual(uses.sort(), [false, true], 'a replayed assertion loses');
      assert.equal(await ops.usePasskey(key.credentialId, 0, 9, 43), false);
      assert.equal((await ops.passkeyById(key.credentialId))?.lastUsedAt, 42);
      assert.equal(await ops.deletePasskey('op_other', key.credentialId), false);
      assert.equal(await ops.deletePasskey(owner.operatorId, key.credentialId), true);
      assert.deepEqual(await ops.passkeysOf(owner.operatorId), []);
    });

    it('device sign-ins: a user code is unique while live; each change is compare-and-set', async () => {
      const ops = store.operators;
      const first = device();
      assert.equal(await ops.insertDevice(first), true);
      assert.equal(await ops.insertDevice(device({ userCode: first.userCode })), false);
      assert.deepEqual(await ops.deviceByCodeHash(first.deviceCodeHash), first);
      assert.deepEqual(await ops.deviceByUserCode(first.userCode, Date.now()), first);
      assert.equal(await ops.deviceByUserCode(first.userCode, first.expiresAt + 1), undefined);
      const moves = await Promise.all(
        ['approved', 'denied'].map((state) =>
          ops.updateDevice(first.deviceCodeHash, 1, { state: state as 'approved', operatorId: 'op_x' }),
        ),
      );
      assert.equal(moves.filter(Boolean).length, 1, 'one decision');
      assert.equal((await ops.deviceByCodeHash(first.deviceCodeHash))?.revision, 2);
      assert.equal(await ops.updateDevice(first.deviceCodeHash, 1, { state: 'used' }), undefined);
      const expired = device({ createdAt: Date.now() - 700_000, expiresAt: Date.now() - 100_000 });
      assert.equal(await ops.insertDevice(expired), true);
      assert.equal(
        await ops.insertDevice(device({ userCode: expired.userCode })),
        true,
        'an expired code is free again',
      );
    });

    it('approvals: newest first with a cursor and a state filter; moves are compare-and-set; overdue ones found', async () => {
      const { approvals } = store;
      const base = Date.now();
      const made = [0, 1, 2].map((index) => approval({ requestedAt: base + index }));
      for (const each of made) await approvals.insert(each);
      assert.deepEqual(await approvals.byId(made[0]!.approvalId), made[0]);
      const firstPage = await approvals.list({ limit: 2, state: 'pending' });
      const mine = new Set(made.map((each) => each.approvalId));
      assert.equal(firstPage.approvals.length, 2);
      assert.ok(firstPage.nextCursor);
      const all = [...firstPage.approvals];
      for (let cursor: string | null = firstPage.nextCursor; cursor;) {
        const page = await approvals.list({ limit: 2, state: 'pending', cursor });
        all.push(...page.approvals);
        cursor = page.nextCursor;
      }
      const ours = all.filter((each) => mine.has(each.approvalId)).map((each) => each.approvalId);
      assert.deepEqual(ours, made.map((each) => each.approvalId).reverse(), 'newest first');
      const racing = await Promise.all(
        ['approved', 'rejected'].map((state) => approvals.move(made[0]!.approvalId, 1, { state: state as 'approved' })),
      );
      assert.equal(racing.filter(Boolean).length, 1, 'two deciders, one decision');
      const pending = await approvals.pendingCount(base);
      const overdue = approval({ requestedAt: base - 10, expiresAt: base - 5 });
      await approvals.insert(overdue);
      assert.equal(await approvals.pendingCount(base), pending, 'an overdue request is not counted');
      assert.ok((await approvals.overdue(base, 100)).some((each) => each.approvalId === overdue.approvalId));
      await approvals.move(overdue.approvalId, 1, { state: 'expired' });
      assert.ok(!(await approvals.overdue(base, 100)).some((each) => each.approvalId === overdue.approvalId));
      const decided = await approvals.list({ limit: 200, state: 'pending' });
      assert.ok(!decided.approvals.some((each) => each.approvalId === made[0]!.approvalId));
    });

    it('the audit: numbered without gaps and chained, also when 30 appends race; listed newest first with filters', async () => {
      const { audit } = store;
      const appended = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          audit.append(entry(index % 2 ? 'approval.approved' : 'order.created')),
        ),
      );
      const seqs = appended.map((record) => record.seq).sort((a, b) => a - b);
      assert.deepEqual(
        seqs,
        Array.from({ length: 30 }, (_, index) => seqs[0]! + index),
      );
      const head = await audit.head();
      assert.equal(head?.seq, seqs[29]);
      const stored = await audit.range(seqs[0]!, 30);
      for (const [index, record] of stored.entries())
        if (index > 0) assert.equal(record.prevHash, stored[index - 1]!.hash, `record ${record.seq} follows`);
      assert.deepEqual(await new AuditTrail(audit).verify(), { ok: true, records: head!.seq, headHash: head!.hash });
      const approvals = await audit.list({ action: 'approval', limit: 5 });
      assert.equal(approvals.length, 5);
      assert.ok(approvals.every((record) => record.action === 'approval.approved'));
      assert.ok(approvals[0]!.seq > approvals[4]!.seq);
      const older = await audit.list({ action: 'approval', limit: 5, beforeSeq: approvals[4]!.seq });
      assert.ok(older[0]!.seq < approvals[4]!.seq);
      assert.deepEqual(await audit.list({ operatorId: 'op_nobody', limit: 5 }), []);
    });
  });
}

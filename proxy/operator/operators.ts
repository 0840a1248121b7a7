/**
 * The operators' accounts: made by an admin's invitation, by `kassa-proxy operators add`, or by the
 * first admin's one-time setup link; an admin changes roles, suspends and removes them, and the last
 * active admin can never be suspended, demoted or removed. Never a default password. Every change is
 * audited with who made it and the account before and after.
 */
import type { Role } from '../../schemas/operators.ts';
import { ConflictError, DomainError, NotAllowedError, NotFoundError } from '../domain/domain-errors.ts';
import type { CredentialRecord, InvitationRecord, OperatorRecord, OperatorStore } from '../state/operators.ts';
import type { AuditActor, AuditContext, AuditTrail } from './audit-trail.ts';
import { hashSecret, randomId, randomSecret, type Credentials } from './credentials.ts';
import { roleAtMost } from './permissions.ts';

export const INVITATION_TTL_MS = 72 * 3_600_000;
export const SETUP_LINK_TTL_MS = 3_600_000;

type AccountProblem = 'email-taken' | 'unknown' | 'moved' | 'last-admin' | 'sso-taken' | 'role-too-high';

/** A refused account change: the domain error that says it, and which problem it was, for callers that act on it. */
export type AccountError = DomainError & { readonly problem: AccountProblem };

/** Each refusal of an account change, as the domain error that says it. */
export function accountError(problem: AccountProblem): AccountError {
  return Object.assign(refusalOf(problem), { problem });
}

/** Whether `error` is a refused account change (of this `problem`, when given). */
export const isAccountError = (error: unknown, problem?: AccountProblem): error is AccountError =>
  error instanceof DomainError && 'problem' in error && (problem === undefined || error.problem === problem);

function refusalOf(problem: AccountProblem): DomainError {
  switch (problem) {
    case 'unknown':
      return new NotFoundError('No operator has this id');
    case 'role-too-high':
      return new NotAllowedError('A token’s role cannot be above its owner’s');
    case 'email-taken':
      return new ConflictError('An operator with this e-mail exists already');
    case 'moved':
      return new ConflictError('The operator changed meanwhile; look again');
    case 'last-admin':
      return new ConflictError('This is the last active admin: make another admin first');
    case 'sso-taken':
      return new ConflictError('This sign-in identity belongs to another operator');
  }
}

export interface NewOperator {
  name: string;
  email: string;
  role: Role;
}

/** What an account made at its person's first sign-in may already have (`signUp`). */
interface FirstSignIn {
  /** The id the first admin's passkey was made for. */
  operatorId?: string;
  /** `<issuer> <sub>` of an account the company's provider vouched for. */
  ssoSubject?: string;
}

/** Who acts, through what, for the audit. */
export interface Acting {
  actor: AuditActor;
  context: AuditContext;
}

/** What the audit keeps of an account: never a secret. */
const accountState = (operator: OperatorRecord) => ({
  name: operator.name,
  email: operator.email,
  role: operator.role,
  state: operator.state,
});

/** What the audit keeps of a credential: never its hash. */
export const credentialState = (credential: CredentialRecord) => ({
  kind: credential.kind,
  name: credential.name,
  role: credential.role,
  expiresAt: new Date(credential.expiresAt).toISOString(),
});

export class OperatorAccounts {
  constructor(
    private readonly store: OperatorStore,
    private readonly credentials: Credentials,
    private readonly audit: AuditTrail,
    private readonly now: () => number = Date.now,
  ) {}

  /** An invited account and its one-time link token (`/operator/invite#<token>`), valid 72 hours. */
  async invite(
    input: NewOperator,
    acting: Acting,
  ): Promise<{ operator: OperatorRecord; token: string; expiresAt: number }> {
    const operator = await this.create(input, 'invited', acting);
    const { token, expiresAt } = await this.invitation('invite', operator.operatorId, acting, INVITATION_TTL_MS);
    await this.record(acting, 'operator.invited', operator, undefined, accountState(operator));
    return { operator, token, expiresAt };
  }

  /**
   * An active account with a personal API token, for deployments and tests without a browser
   * (`kassa-proxy operators add --token`): the token is shown once.
   */
  async addWithToken(
    input: NewOperator & { tokenName?: string; expiresInDays?: number },
    acting: Acting,
  ): Promise<{ operator: OperatorRecord; token: string; expiresAt: number }> {
    const operator = await this.create(input, 'active', acting);
    await this.record(acting, 'operator.added', operator, undefined, accountState(operator));
    const { secret, credential } = await this.createToken(
      operator,
      { name: input.tokenName ?? 'kassa-proxy operators add', role: operator.role, expiresInDays: input.expiresInDays },
      acting,
    );
    return { operator, token: secret, expiresAt: credential.expiresAt };
  }

  /** A personal API token of `owner`'s, with a role no higher than theirs: the secret is shown once. */
  async createToken(
    owner: OperatorRecord,
    token: { name: string; role: Role; expiresInDays?: number | undefined },
    acting: Acting,
  ): Promise<{ secret: string; credential: CredentialRecord }> {
    if (!roleAtMost(token.role, owner.role)) throw accountError('role-too-high');
    const issued = await this.credentials.issue({
      operator: owner,
      kind: 'api',
      name: token.name,
      role: token.role,
      expiresInDays: token.expiresInDays,
      ip: acting.context.ip,
      userAgent: acting.context.userAgent,
    });
    await this.audit.record(acting.actor, 'token.created', acting.context, {
      target: { type: 'credential', id: issued.credential.credentialId },
      after: { operatorId: owner.operatorId, ...credentialState(issued.credential) },
    });
    return issued;
  }

  /** Revokes a credential; undefined when it was unknown or revoked already. */
  async revokeCredential(credentialId: string, acting: Acting): Promise<CredentialRecord | undefined> {
    const revoked = await this.store.revokeCredential(credentialId, this.now());
    if (revoked)
      await this.audit.record(
        acting.actor,
        revoked.kind === 'api' ? 'token.revoked' : 'session.revoked',
        acting.context,
        {
          target: { type: 'credential', id: credentialId },
          before: { operatorId: revoked.operatorId, ...credentialState(revoked) },
        },
      );
    return revoked;
  }

  /** A role change, or a suspension (or its end), decided on the account as it was read at `revision`. */
  async change(
    operatorId: string,
    change: { role?: Role | undefined; state?: 'active' | 'suspended' | undefined },
    acting: Acting,
  ): Promise<OperatorRecord> {
    const before = await this.store.operatorById(operatorId);
    if (!before) throw accountError('unknown');
    const outcome = await this.store.updateOperator(operatorId, before.revision, {
      ...change,
      updatedAt: this.now(),
    });
    if (outcome.outcome !== 'updated') throw accountError(outcome.outcome === 'moved' ? 'moved' : outcome.outcome);
    const after = outcome.operator;
    const action =
      change.state && change.state !== before.state
        ? change.state === 'suspended'
          ? 'operator.suspended'
          : 'operator.reactivated'
        : 'operator.role_changed';
    await this.record(acting, action, after, accountState(before), accountState(after));
    return after;
  }

  /** Deletes the account, its credentials, passkeys and invitations; the audit keeps its name and role as they were. */
  async remove(operatorId: string, acting: Acting): Promise<void> {
    const before = await this.store.operatorById(operatorId);
    if (!before) throw accountError('unknown');
    const outcome = await this.store.removeOperator(operatorId);
    if (outcome === 'missing') throw accountError('unknown');
    if (outcome === 'last-admin') throw accountError('last-admin');
    await this.record(acting, 'operator.removed', before, accountState(before), null);
  }

  /**
   * The first admin's one-time setup link token (`/operator/setup#<token>`), valid an hour, while the
   * shop has no active admin; undefined once it has one.
   */
  async setupToken(): Promise<{ token: string; expiresAt: number } | undefined> {
    if ((await this.store.activeAdmins()) > 0) return undefined;
    const system = { operatorId: null, name: 'Kassa', role: null, via: 'setup' } as const;
    return this.invitation(
      'setup',
      null,
      { actor: system, context: { requestId: null, ip: null, userAgent: null } },
      SETUP_LINK_TTL_MS,
    );
  }

  /**
   * An account its person makes at their first sign-in, active at once: the first admin from the setup
   * link (whose passkey named the account's id before the account existed), or someone the company's
   * identity provider vouched for (with their identity there).
   */
  async signUp(input: NewOperator & FirstSignIn, acting: Acting): Promise<OperatorRecord> {
    const operator = await this.create(input, 'active', acting);
    await this.record(acting, 'operator.added', operator, undefined, accountState(operator));
    return operator;
  }

  private async create(
    input: NewOperator & FirstSignIn,
    state: 'invited' | 'active',
    acting: Acting,
  ): Promise<OperatorRecord> {
    const now = this.now();
    const operator: OperatorRecord = {
      operatorId: input.operatorId ?? randomId('op_'),
      name: input.name,
      email: input.email.toLowerCase(),
      role: input.role,
      state,
      createdAt: now,
      createdBy: input.ssoSubject ? 'sso' : (acting.actor.operatorId ?? acting.actor.via),
      updatedAt: now,
      revision: 1,
      ssoSubject: input.ssoSubject ?? null,
    };
    const outcome = await this.store.createOperator(operator);
    if (outcome !== 'created') throw accountError(outcome);
    return operator;
  }

  private async invitation(
    purpose: InvitationRecord['purpose'],
    operatorId: string | null,
    acting: Acting,
    ttlMs: number,
  ): Promise<{ token: string; expiresAt: number }> {
    const token = randomSecret();
    const now = this.now();
    await this.store.insertInvitation({
      tokenHash: hashSecret(token),
      purpose,
      operatorId,
      createdAt: now,
      expiresAt: now + ttlMs,
      createdBy: acting.actor.operatorId ?? acting.actor.via,
    });
    return { token, expiresAt: now + ttlMs };
  }

  private record(acting: Acting, action: string, operator: OperatorRecord, before: unknown, after: unknown) {
    return this.audit.record(acting.actor, action, acting.context, {
      target: { type: 'operator', id: operator.operatorId },
      before,
      after,
    });
  }
}

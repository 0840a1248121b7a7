/**
 * The operators' accounts: made by an admin's invitation, by `kassa-proxy operators add`, or by the
 * first admin's one-time setup link; an admin changes roles, suspends and removes them, and the last
 * active admin can never be suspended, demoted or removed. Never a default password.
 */
import type { Role } from '../../schemas/operators.ts';
import type { InvitationRecord, OperatorRecord, OperatorStore } from '../state/operators.ts';
import { hashSecret, randomId, randomSecret, type Credentials } from './credentials.ts';

export const INVITATION_TTL_MS = 72 * 3_600_000;
export const SETUP_LINK_TTL_MS = 3_600_000;

/** Why an account change is refused; the edge says it in words with its status. */
export type AccountProblem = 'email-taken' | 'unknown' | 'moved' | 'last-admin' | 'sso-taken';

export class AccountError extends Error {
  constructor(
    readonly problem: AccountProblem,
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

const MESSAGES: Record<AccountProblem, string> = {
  'email-taken': 'An operator with this e-mail exists already',
  unknown: 'No operator has this id',
  moved: 'The operator changed meanwhile; look again',
  'last-admin': 'This is the last active admin: make another admin first',
  'sso-taken': 'This sign-in identity belongs to another operator',
};

export const accountError = (problem: AccountProblem): AccountError => new AccountError(problem, MESSAGES[problem]);

export interface NewOperator {
  name: string;
  email: string;
  role: Role;
  /** An operator id, or `cli`, `setup` or `sso`. */
  createdBy: string;
}

export class OperatorAccounts {
  constructor(
    private readonly store: OperatorStore,
    private readonly credentials: Credentials,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores a new account, `invited` until its person signs in for the first time, or `active`. The
   * first admin's passkey names its account before it exists (`operatorId`); an account made by SSO
   * carries its identity at the provider (`ssoSubject`).
   */
  async create(
    input: NewOperator & { state: 'invited' | 'active'; operatorId?: string; ssoSubject?: string },
  ): Promise<OperatorRecord> {
    const now = this.now();
    const operator: OperatorRecord = {
      operatorId: input.operatorId ?? randomId('op_'),
      name: input.name,
      email: input.email.toLowerCase(),
      role: input.role,
      state: input.state,
      createdAt: now,
      createdBy: input.createdBy,
      updatedAt: now,
      revision: 1,
      ssoSubject: input.ssoSubject ?? null,
    };
    const outcome = await this.store.createOperator(operator);
    if (outcome !== 'created') throw accountError(outcome);
    return operator;
  }

  /** An invited account and its one-time link token (`/operator/invite#<token>`), valid 72 hours. */
  async invite(input: NewOperator): Promise<{ operator: OperatorRecord; token: string; expiresAt: number }> {
    const operator = await this.create({ ...input, state: 'invited' });
    const { token, expiresAt } = await this.invitation(
      'invite',
      operator.operatorId,
      input.createdBy,
      INVITATION_TTL_MS,
    );
    return { operator, token, expiresAt };
  }

  /**
   * An active account with a personal API token, for deployments and tests without a browser
   * (`kassa-proxy operators add --token`): the token is shown once.
   */
  async addWithToken(
    input: NewOperator & { tokenName?: string; expiresInDays?: number },
  ): Promise<{ operator: OperatorRecord; token: string; expiresAt: number }> {
    const operator = await this.create({ ...input, state: 'active' });
    const { secret, credential } = await this.credentials.issue({
      operator,
      kind: 'api',
      name: input.tokenName ?? `created by ${input.createdBy}`,
      role: operator.role,
      expiresInDays: input.expiresInDays,
    });
    return { operator, token: secret, expiresAt: credential.expiresAt };
  }

  /**
   * The first admin's one-time setup link token (`/operator/setup#<token>`), valid an hour, while the
   * shop has no active admin; undefined once it has one.
   */
  async setupToken(): Promise<{ token: string; expiresAt: number } | undefined> {
    if ((await this.store.activeAdmins()) > 0) return undefined;
    return this.invitation('setup', null, 'setup', SETUP_LINK_TTL_MS);
  }

  private async invitation(
    purpose: InvitationRecord['purpose'],
    operatorId: string | null,
    createdBy: string,
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
      createdBy,
    });
    return { token, expiresAt: now + ttlMs };
  }
}

/**
 * Which operator a person the company's provider vouched for signs in as: found by their identity at
 * the provider, else by e-mail (and from then on bound to that identity); made on first sign-in when
 * the role claim maps to a role; their role kept in step with the claim at every sign-in. People
 * outside the allowed domains, or whose claim maps to no role, are refused in words.
 */
import { ROLES, type Role } from '../../../schemas/operators.ts';
import type { OperatorChange, OperatorRecord, OperatorStore } from '../../state/operators.ts';
import { isAccountError, type Acting, type OperatorAccounts } from '../operators.ts';
import type { OidcIdentity } from './oidc.ts';
import type { OidcSettings } from './signin-settings.ts';

export type SsoRefusal = 'failed' | 'no-email' | 'domain' | 'unverified' | 'no-role' | 'suspended' | 'identity-taken';

/** What the person is told (the page says it in their language, by `refusal`). */
export const SSO_REFUSALS: Record<SsoRefusal, string> = {
  failed: 'The sign-in with your company account did not complete; try again',
  'no-email': 'Your company account gives no e-mail address, which Kassa needs to know you',
  domain: 'Your e-mail address is not in a domain allowed to sign in to this Kassa',
  unverified: 'Your company account has not verified your e-mail address',
  'no-role': 'Your company account is in no group that has a Kassa role; ask an admin',
  suspended: 'Your Kassa account is suspended; ask an admin',
  'identity-taken': 'Your e-mail address belongs to a Kassa account linked to another company account; ask an admin',
};

export class SsoRefusedError extends Error {
  constructor(readonly refusal: SsoRefusal) {
    super(SSO_REFUSALS[refusal]);
    this.name = 'SsoRefusedError';
  }
}

/** An account change sign-in made, for the audit (an account made is audited as it is made). */
export interface SsoAccountChange {
  action: 'operator.role_changed' | 'operator.activated' | 'operator.sso_linked';
  before: unknown;
  after: unknown;
}

export class SsoAccounts {
  constructor(
    private readonly settings: OidcSettings,
    private readonly store: OperatorStore,
    private readonly accounts: OperatorAccounts,
    private readonly now: () => number = Date.now,
  ) {}

  /** The highest role any of the claim's values maps to, or null. */
  roleFor(values: readonly string[]): Role | null {
    const mapped = values.flatMap((value) => this.settings.roles.get(value) ?? []);
    return mapped.length ? mapped.reduce((a, b) => (ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b)) : null;
  }

  /**
   * The operator `identity` signs in as, made (by `acting`) or brought in step, and what changed;
   * throws SsoRefusedError.
   */
  async resolve(
    identity: OidcIdentity,
    acting: Acting,
  ): Promise<{ operator: OperatorRecord; changes: SsoAccountChange[] }> {
    const email = identity.email;
    if (!email) throw new SsoRefusedError('no-email');
    if (!this.settings.allowedDomains.includes(email.slice(email.lastIndexOf('@') + 1)))
      throw new SsoRefusedError('domain');
    if (!identity.emailVerified) throw new SsoRefusedError('unverified');
    const role = this.roleFor(identity.claimValues);
    const rolesFollowClaim = this.settings.roles.size > 0;
    // A change made meanwhile (an admin's, another sign-in's) is read again and decided anew.
    for (let attempt = 0; attempt < 5; attempt++) {
      const found =
        (await this.store.operatorBySsoSubject(identity.subject)) ?? (await this.store.operatorByEmail(email));
      if (!found) {
        if (!role) throw new SsoRefusedError('no-role');
        const made = await this.create(identity, email, role, acting);
        if (made) return { operator: made, changes: [] };
        continue;
      }
      if (found.ssoSubject !== null && found.ssoSubject !== identity.subject)
        throw new SsoRefusedError('identity-taken');
      if (found.state === 'suspended') throw new SsoRefusedError('suspended');
      if (rolesFollowClaim && !role) throw new SsoRefusedError('no-role');
      const change: OperatorChange = { updatedAt: this.now() };
      if (found.ssoSubject === null) change.ssoSubject = identity.subject;
      if (rolesFollowClaim && role !== found.role) change.role = role!;
      if (found.state === 'invited') change.state = 'active';
      if (Object.keys(change).length === 1) return { operator: found, changes: [] };
      const outcome = await this.store.updateOperator(found.operatorId, found.revision, change);
      if (outcome.outcome === 'updated') return { operator: outcome.operator, changes: changesOf(found, change) };
      if (outcome.outcome === 'sso-taken') throw new SsoRefusedError('identity-taken');
      if (outcome.outcome === 'last-admin') {
        // The provider no longer makes them an admin, but they are the shop's last one: kept, so that
        // the shop is never left without one; the rest of the change is made.
        const kept = await this.store.updateOperator(found.operatorId, found.revision, { ...change, role: found.role });
        if (kept.outcome === 'updated')
          return { operator: kept.operator, changes: changesOf(found, { ...change, role: found.role }) };
      }
    }
    throw new SsoRefusedError('failed');
  }

  private async create(
    identity: OidcIdentity,
    email: string,
    role: Role,
    acting: Acting,
  ): Promise<OperatorRecord | undefined> {
    try {
      return await this.accounts.signUp(
        { name: identity.name ?? email, email, role, ssoSubject: identity.subject },
        acting,
      );
    } catch (error) {
      // Made by a sign-in at the same moment: found on the next reading.
      if (isAccountError(error)) return undefined;
      throw error;
    }
  }
}

function changesOf(before: OperatorRecord, change: OperatorChange): SsoAccountChange[] {
  const changes: SsoAccountChange[] = [];
  if (change.ssoSubject !== undefined)
    changes.push({ action: 'operator.sso_linked', before: null, after: { ssoSubject: change.ssoSubject } });
  if (change.role !== undefined && change.role !== before.role)
    changes.push({ action: 'operator.role_changed', before: { role: before.role }, after: { role: change.role } });
  if (change.state === 'active')
    changes.push({ action: 'operator.activated', before: { state: before.state }, after: { state: 'active' } });
  return changes;
}

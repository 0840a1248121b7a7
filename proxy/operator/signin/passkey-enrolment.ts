/**
 * Making passkeys: an invited person's first (`/operator/invite#<token>`, which activates their
 * account), the first admin's (`/operator/setup#<token>`, which makes the account), and another one
 * of a signed-in person's; and removing one. A link is used only once its passkey is made and stored.
 */
import type { Context } from 'hono';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { z } from 'zod';
import type { linkLookupSchema, registrationOptionsRequestSchema, SignedIn } from '../../../schemas/operator-signin.ts';
import type { OperatorRecord, OperatorStore, PasskeyRecord } from '../../state/operators.ts';
import { hashSecret, randomId, type OperatorPrincipal } from '../credentials.ts';
import { AccountError, type OperatorAccounts } from '../operators.ts';
import type { Passkeys } from './passkeys.ts';
import type { RelyingParty } from './relying-party.ts';
import type { SigninEvents } from './signin-events.ts';
import type { WebSessions } from './web-session.ts';

export type EnrolmentProblem =
  'link' | 'admin-exists' | 'email-taken' | 'not-made' | 'unknown-passkey' | 'last-passkey';

const MESSAGES: Record<EnrolmentProblem, string> = {
  link: 'This link is not valid: it was used, has expired, or is not one Kassa gave',
  'admin-exists': 'This Kassa has an admin already: ask them to invite you',
  'email-taken': 'An operator with this e-mail exists already',
  'not-made': 'The passkey was not made: start again',
  'unknown-passkey': 'You have no passkey with this id',
  'last-passkey': 'This is your only way to sign in: add another passkey first',
};

export class EnrolmentError extends Error {
  constructor(readonly problem: EnrolmentProblem) {
    super(MESSAGES[problem]);
    this.name = 'EnrolmentError';
  }
}

type LinkRequest = z.infer<typeof registrationOptionsRequestSchema>;
type LinkLookup = z.infer<typeof linkLookupSchema>;

const operatorVia = (operator: Pick<OperatorRecord, 'operatorId' | 'name' | 'role'>, via: 'web' | 'setup') => ({
  operatorId: operator.operatorId,
  name: operator.name,
  role: operator.role,
  via,
});

export class PasskeyEnrolment {
  constructor(
    private readonly deps: {
      store: OperatorStore;
      passkeys: Passkeys;
      accounts: OperatorAccounts;
      sessions: WebSessions;
      events: SigninEvents;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Whom a link is for, before its person makes a passkey; EnrolmentError('link') when it leads nowhere. */
  async lookup(link: LinkLookup['link'], token: string): Promise<LinkLookup> {
    const invitation = await this.deps.store.invitationByHash(hashSecret(token), this.now());
    const expected = link === 'setup' ? 'setup' : 'invite';
    if (invitation?.purpose !== expected) throw new EnrolmentError('link');
    if (link === 'setup') {
      if ((await this.deps.store.activeAdmins()) > 0) throw new EnrolmentError('admin-exists');
      return { link, operator: null, expiresAt: new Date(invitation.expiresAt).toISOString() };
    }
    const operator = await this.invitee(invitation.operatorId);
    return {
      link,
      operator: { name: operator.name, email: operator.email, role: operator.role },
      expiresAt: new Date(invitation.expiresAt).toISOString(),
    };
  }

  /** Options for the first passkey of a link's person; the link stays unused until it is made. */
  async linkOptions(rp: RelyingParty, request: LinkRequest): Promise<PublicKeyCredentialCreationOptionsJSON> {
    await this.lookup(request.link, request.token);
    const tokenHash = hashSecret(request.token);
    if (request.link === 'invitation') {
      const invitation = await this.deps.store.invitationByHash(tokenHash, this.now());
      const operator = await this.invitee(invitation?.operatorId ?? null);
      return this.deps.passkeys.registrationOptions(rp, operator, {
        link: 'invitation',
        tokenHash,
        passkeyName: request.passkeyName,
      });
    }
    if (await this.deps.store.operatorByEmail(request.email)) throw new EnrolmentError('email-taken');
    // The account does not exist yet: its id is chosen now, since the passkey carries it as its user.
    const person = { operatorId: randomId('op_'), name: request.name, email: request.email };
    return this.deps.passkeys.registrationOptions(rp, person, {
      link: 'setup',
      tokenHash,
      name: request.name,
      email: request.email,
      passkeyName: request.passkeyName,
    });
  }

  /** Stores the link's passkey, uses the link, activates or makes the account, and signs its person in. */
  async finishLink(c: Context, rp: RelyingParty, response: RegistrationResponseJSON): Promise<SignedIn> {
    const { store, events, sessions } = this.deps;
    const made = await this.deps.passkeys.verifyRegistration(rp, response);
    const link = made?.data.link;
    if (!made || (link !== 'invitation' && link !== 'setup') || !made.data.tokenHash)
      throw new EnrolmentError('not-made');
    if (!(await store.insertPasskey(made.passkey))) throw new EnrolmentError('not-made');
    const invitation = await store.takeInvitation(made.data.tokenHash, this.now());
    let operator: OperatorRecord;
    try {
      if (invitation?.purpose !== (link === 'setup' ? 'setup' : 'invite')) throw new EnrolmentError('link');
      operator =
        link === 'setup'
          ? await this.makeFirstAdmin(made.passkey.operatorId, made.data)
          : await this.activate(made.passkey.operatorId, invitation.operatorId);
    } catch (error) {
      // No account to go with it: the passkey goes too.
      await store.deletePasskey(made.passkey.operatorId, made.passkey.credentialId);
      throw error;
    }
    const via = link === 'setup' ? 'setup' : 'web';
    await events.record(c, {
      actor: operatorVia(operator, via),
      action: link === 'setup' ? 'operator.created' : 'operator.activated',
      target: { type: 'operator', id: operator.operatorId },
      after: { name: operator.name, email: operator.email, role: operator.role, state: operator.state },
    });
    await this.passkeyAdded(c, operatorVia(operator, via), made.passkey);
    const { signedIn, session } = await sessions.start(c, operator);
    await events.signedIn(c, link === 'setup' ? 'setup' : 'invitation', operator, session.credentialId);
    return signedIn;
  }

  /** Options for another passkey of the signed-in person. */
  addOptions(
    rp: RelyingParty,
    person: OperatorPrincipal,
    passkeyName: string,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return this.deps.passkeys.registrationOptions(rp, person, { link: 'add', passkeyName });
  }

  /** Stores the signed-in person's new passkey, made on options they asked for themselves. */
  async finishAdd(
    c: Context,
    rp: RelyingParty,
    person: OperatorPrincipal,
    response: RegistrationResponseJSON,
  ): Promise<PasskeyRecord> {
    const made = await this.deps.passkeys.verifyRegistration(rp, response);
    if (!made || made.data.link !== 'add' || made.passkey.operatorId !== person.operatorId)
      throw new EnrolmentError('not-made');
    if (!(await this.deps.store.insertPasskey(made.passkey))) throw new EnrolmentError('not-made');
    await this.passkeyAdded(c, operatorVia(person, 'web'), made.passkey);
    return made.passkey;
  }

  /**
   * Removes one of the person's passkeys; never the last way they have to sign in (their last
   * passkey, unless their account signs in with the company's provider).
   */
  async remove(c: Context, person: OperatorPrincipal, credentialId: string): Promise<void> {
    const { store, events } = this.deps;
    const theirs = await store.passkeysOf(person.operatorId);
    const passkey = theirs.find((each) => each.credentialId === credentialId);
    if (!passkey) throw new EnrolmentError('unknown-passkey');
    const account = await store.operatorById(person.operatorId);
    if (theirs.length === 1 && !account?.ssoSubject) throw new EnrolmentError('last-passkey');
    if (!(await store.deletePasskey(person.operatorId, credentialId))) throw new EnrolmentError('unknown-passkey');
    await events.record(c, {
      actor: { ...operatorVia(person, 'web'), via: person.credential.kind },
      action: 'passkey.removed',
      target: { type: 'passkey', id: credentialId },
      before: { name: passkey.name },
    });
  }

  private passkeyAdded(c: Context, actor: ReturnType<typeof operatorVia>, passkey: PasskeyRecord): Promise<void> {
    return this.deps.events.record(c, {
      actor,
      action: 'passkey.added',
      target: { type: 'passkey', id: passkey.credentialId },
      after: { name: passkey.name, deviceType: passkey.deviceType, backedUp: passkey.backedUp },
    });
  }

  /** The invited person an invitation is for, still waiting to sign in for the first time. */
  private async invitee(operatorId: string | null): Promise<OperatorRecord> {
    const operator = operatorId ? await this.deps.store.operatorById(operatorId) : undefined;
    if (operator?.state !== 'invited') throw new EnrolmentError('link');
    return operator;
  }

  private async activate(operatorId: string, invited: string | null): Promise<OperatorRecord> {
    if (operatorId !== invited) throw new EnrolmentError('link');
    for (let attempt = 0; attempt < 5; attempt++) {
      const operator = await this.invitee(operatorId);
      const outcome = await this.deps.store.updateOperator(operatorId, operator.revision, {
        state: 'active',
        updatedAt: this.now(),
      });
      if (outcome.outcome === 'updated') return outcome.operator;
    }
    throw new EnrolmentError('not-made');
  }

  private async makeFirstAdmin(operatorId: string, data: Record<string, string | null>): Promise<OperatorRecord> {
    if ((await this.deps.store.activeAdmins()) > 0) throw new EnrolmentError('admin-exists');
    try {
      return await this.deps.accounts.create({
        operatorId,
        name: data.name ?? '',
        email: data.email ?? '',
        role: 'admin',
        state: 'active',
        createdBy: 'setup',
      });
    } catch (error) {
      if (error instanceof AccountError && error.problem === 'email-taken') throw new EnrolmentError('email-taken');
      throw error;
    }
  }
}

/**
 * Making passkeys: an invited person's first (`/operator/invite#<token>`, which activates their
 * account), the first admin's (`/operator/setup#<token>`, which makes the account), and another one
 * of a signed-in person's. A link is used only once its passkey is made and stored.
 */
import type { Context } from 'hono';
import { ConflictError, InvalidInputError, NotFoundError, type DomainError } from '../../domain/domain-errors.ts';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { z } from 'zod';
import type { linkLookupSchema, registrationOptionsRequestSchema, SignedIn } from '../../../schemas/operator-signin.ts';
import type { OperatorRecord, OperatorStore, PasskeyRecord } from '../../state/operators.ts';
import { personActor, type AuditActor } from '../audit-trail.ts';
import { hashSecret, randomId, type OperatorPrincipal } from '../credentials.ts';
import type { OperatorEnv } from '../operator-auth.ts';
import { isAccountError, type OperatorAccounts } from '../operators.ts';
import type { Passkeys } from './passkeys.ts';
import type { RelyingParty } from './relying-party.ts';
import type { SigninEvents } from './signin-events.ts';
import type { WebSessions } from './web-session.ts';

export type EnrolmentProblem = 'link' | 'admin-exists' | 'email-taken' | 'not-made';

const MESSAGES: Record<EnrolmentProblem, string> = {
  link: 'This link is not valid: it was used, has expired, or is not one Kassa gave',
  'admin-exists': 'This Kassa has an admin already: ask them to invite you',
  'email-taken': 'An operator with this e-mail exists already',
  'not-made': 'The passkey was not made: start again',
};

/** A refused enrolment, as the domain error that says it, with its problem in `details` for the page. */
function enrolmentError(problem: EnrolmentProblem): DomainError {
  const options = { details: { problem } };
  switch (problem) {
    case 'link':
      return new NotFoundError(MESSAGES[problem], options);
    case 'admin-exists':
    case 'email-taken':
      return new ConflictError(MESSAGES[problem], options);
    case 'not-made':
      return new InvalidInputError(MESSAGES[problem], options);
  }
}

type LinkRequest = z.infer<typeof registrationOptionsRequestSchema>;
type LinkLookup = z.infer<typeof linkLookupSchema>;

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

  /** Whom a link is for, before its person makes a passkey; a NotFoundError when it leads nowhere. */
  async lookup(link: LinkLookup['link'], token: string): Promise<LinkLookup> {
    const invitation = await this.deps.store.invitationByHash(hashSecret(token), this.now());
    const expected = link === 'setup' ? 'setup' : 'invite';
    if (invitation?.purpose !== expected) throw enrolmentError('link');
    if (link === 'setup') {
      if ((await this.deps.store.activeAdmins()) > 0) throw enrolmentError('admin-exists');
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
    if (await this.deps.store.operatorByEmail(request.email)) throw enrolmentError('email-taken');
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
  async finishLink(c: Context<OperatorEnv>, rp: RelyingParty, response: RegistrationResponseJSON): Promise<SignedIn> {
    const { store, events, sessions } = this.deps;
    const made = await this.deps.passkeys.verifyRegistration(rp, response);
    const link = made?.data.link;
    if (!made || (link !== 'invitation' && link !== 'setup') || !made.data.tokenHash) throw enrolmentError('not-made');
    if (!(await store.insertPasskey(made.passkey))) throw enrolmentError('not-made');
    const invitation = await store.takeInvitation(made.data.tokenHash, this.now());
    let operator: OperatorRecord;
    try {
      if (invitation?.purpose !== (link === 'setup' ? 'setup' : 'invite')) throw enrolmentError('link');
      operator =
        link === 'setup'
          ? await this.makeFirstAdmin(c, made.passkey.operatorId, made.data)
          : await this.activate(c, made.passkey.operatorId, invitation.operatorId);
    } catch (error) {
      // No account to go with it: the passkey goes too.
      await store.deletePasskey(made.passkey.operatorId, made.passkey.credentialId);
      throw error;
    }
    await this.passkeyAdded(c, personActor(operator, link === 'setup' ? 'setup' : 'web'), made.passkey);
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
    c: Context<OperatorEnv>,
    rp: RelyingParty,
    person: OperatorPrincipal,
    response: RegistrationResponseJSON,
  ): Promise<PasskeyRecord> {
    const made = await this.deps.passkeys.verifyRegistration(rp, response);
    if (!made || made.data.link !== 'add' || made.passkey.operatorId !== person.operatorId)
      throw enrolmentError('not-made');
    if (!(await this.deps.store.insertPasskey(made.passkey))) throw enrolmentError('not-made');
    await this.passkeyAdded(c, personActor(person, person.credential.kind), made.passkey);
    return made.passkey;
  }

  private passkeyAdded(c: Context<OperatorEnv>, actor: AuditActor, passkey: PasskeyRecord): Promise<void> {
    return this.deps.events.record(c, actor, 'passkey.added', {
      target: { type: 'passkey', id: passkey.credentialId },
      after: { name: passkey.name, deviceType: passkey.deviceType, backedUp: passkey.backedUp },
    });
  }

  /** The invited person an invitation is for, still waiting to sign in for the first time. */
  private async invitee(operatorId: string | null): Promise<OperatorRecord> {
    const operator = operatorId ? await this.deps.store.operatorById(operatorId) : undefined;
    if (operator?.state !== 'invited') throw enrolmentError('link');
    return operator;
  }

  /** The invited person's account, active from their first passkey on. */
  private async activate(c: Context<OperatorEnv>, operatorId: string, invited: string | null): Promise<OperatorRecord> {
    if (operatorId !== invited) throw enrolmentError('link');
    for (let attempt = 0; attempt < 5; attempt++) {
      const operator = await this.invitee(operatorId);
      const outcome = await this.deps.store.updateOperator(operatorId, operator.revision, {
        state: 'active',
        updatedAt: this.now(),
      });
      if (outcome.outcome !== 'updated') continue;
      await this.deps.events.record(c, personActor(outcome.operator, 'web'), 'operator.activated', {
        target: { type: 'operator', id: operatorId },
        before: { state: operator.state },
        after: { state: 'active' },
      });
      return outcome.operator;
    }
    throw enrolmentError('not-made');
  }

  /** The first admin's account, made by its person with the setup link while there is no admin. */
  private async makeFirstAdmin(
    c: Context<OperatorEnv>,
    operatorId: string,
    data: Record<string, string | null>,
  ): Promise<OperatorRecord> {
    if ((await this.deps.store.activeAdmins()) > 0) throw enrolmentError('admin-exists');
    const person = { operatorId, name: data.name ?? '', email: data.email ?? '', role: 'admin' as const };
    try {
      return await this.deps.accounts.signUp(person, this.deps.events.acting(c, personActor(person, 'setup')));
    } catch (error) {
      if (isAccountError(error, 'email-taken')) throw enrolmentError('email-taken');
      throw error;
    }
  }
}

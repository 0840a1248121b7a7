/**
 * Signing in with a passkey: the assertion checked (passkeys.ts), failed sign-ins limited per account
 * and per address (signin-limits.ts), a web session started, and every outcome in the audit trail and
 * /metrics. Whatever was wrong, the person is told the same words.
 */
import type { Context } from 'hono';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { SignedIn } from '../../../schemas/operator-signin.ts';
import { clientAddress } from '../../../server-kit/client-address.ts';
import type { OperatorStore } from '../../state/operators.ts';
import { UnauthenticatedError } from '../../domain/domain-errors.ts';
import { OPERATOR_REALM, type OperatorEnv } from '../operator-auth.ts';
import type { Passkeys } from './passkeys.ts';
import type { RelyingParty } from './relying-party.ts';
import type { SigninEvents } from './signin-events.ts';
import type { SigninLimits } from './signin-limits.ts';
import type { WebSessions } from './web-session.ts';

/** The one answer to every refused passkey sign-in. */
export const SIGNIN_REFUSED = 'The passkey did not sign you in';

export class SigninRefusedError extends UnauthenticatedError {
  override name = 'SigninRefusedError';

  constructor() {
    super(SIGNIN_REFUSED, OPERATOR_REALM);
  }
}

export class PasskeySignin {
  constructor(
    private readonly deps: {
      store: OperatorStore;
      passkeys: Passkeys;
      limits: SigninLimits;
      sessions: WebSessions;
      events: SigninEvents;
      trustProxy: boolean;
    },
  ) {}

  options(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.deps.passkeys.signinOptions(rp);
  }

  /**
   * The session of the passkey's owner; SigninLimitedError while this address or that account failed
   * too often lately (whatever this attempt would have been), else SigninRefusedError for anything wrong.
   */
  async signIn(c: Context<OperatorEnv>, rp: RelyingParty, response: AuthenticationResponseJSON): Promise<SignedIn> {
    const { store, passkeys, limits, sessions, events } = this.deps;
    const address = clientAddress(c, this.deps.trustProxy);
    const refused = async (why: string, operatorId: string | null) => {
      const owner = operatorId ? await store.operatorById(operatorId) : undefined;
      await events.failed(c, 'passkey', why, owner ?? null);
    };
    if (limits.blocked(address)) {
      await refused('too many failed sign-ins from this address', null);
      throw limits.refusal(address);
    }
    const check = await passkeys.verifySignin(rp, response);
    const operatorId = check.ok ? check.operator.operatorId : check.operatorId;
    if (limits.blocked(address, operatorId)) {
      await refused('too many failed sign-ins of this account', operatorId);
      throw limits.refusal(address, operatorId);
    }
    if (!check.ok) {
      limits.failed(address, operatorId);
      await refused(check.detail ? `${check.failure}: ${check.detail}` : check.failure, operatorId);
      throw new SigninRefusedError();
    }
    const { signedIn, session } = await sessions.start(c, check.operator);
    await events.signedIn(c, 'passkey', check.operator, session.credentialId);
    return signedIn;
  }
}

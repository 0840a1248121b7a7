/**
 * Passkeys (WebAuthn, with @simplewebauthn/server): discoverable credentials with user verification
 * required, so that a passkey alone (something the person has, unlocked by something they are or
 * know) signs them in, with no name typed. Each ceremony's challenge is kept in the store and taken
 * once, so an assertion can never be used twice, even from an authenticator whose counter stays at 0.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { OperatorRecord, OperatorStore, PasskeyRecord } from '../../state/operators.ts';
import type { CeremonyRecord } from '../../state/signin-ceremonies.ts';
import { type Ceremonies, CEREMONY_TTL_MS } from './ceremonies.ts';
import type { RelyingParty } from './relying-party.ts';

/** EdDSA, ES256 and RS256: what passkey managers and security keys make. */
const ALGORITHMS = [-8, -7, -257];

/** What the browser's prompt waits for the person at most. */
const PROMPT_MS = 120_000;

/** WebAuthn's user handle of an operator: their id's bytes, base64url (what a discoverable passkey gives back). */
export const userHandleOf = (operatorId: string): string => Buffer.from(operatorId).toString('base64url');

/**
 * Why an assertion did not sign anyone in. Kept for the audit and the log; the person is told the
 * same words whatever it was, so that an attacker learns nothing from trying.
 */
export type SigninFailure =
  | 'malformed'
  | 'unknown-challenge'
  | 'unknown-credential'
  | 'wrong-user'
  | 'not-verified'
  | 'counter-moved'
  | 'not-active';

export type SigninCheck =
  | { ok: true; operator: OperatorRecord; passkey: PasskeyRecord }
  | { ok: false; failure: SigninFailure; detail?: string; operatorId: string | null };

/** The challenge an answer signed, from its clientDataJSON; undefined when that is not what a browser sends. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as unknown;
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 256 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

export class Passkeys {
  constructor(
    private readonly store: OperatorStore,
    private readonly ceremonies: Ceremonies,
    private readonly now: () => number = Date.now,
  ) {}

  /** Options for signing in with any passkey of this site: the browser offers the person theirs. */
  async signinOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({
      rpID: rp.rpId,
      userVerification: 'required',
      timeout: Math.min(PROMPT_MS, CEREMONY_TTL_MS),
    });
    await this.ceremonies.start(options.challenge, 'passkey-signin', {});
    return options;
  }

  /**
   * Whose passkey signed the challenge, if it did: the challenge one this proxy gave and not used
   * before, the passkey known, the signature good, the person verified, the counter moved forward
   * (and recorded before anything else may use it), the account active.
   */
  async verifySignin(rp: RelyingParty, response: AuthenticationResponseJSON): Promise<SigninCheck> {
    const challenge = challengeOf(response.response.clientDataJSON);
    if (!challenge) return { ok: false, failure: 'malformed', operatorId: null };
    // Taken first, whatever follows: a challenge answers one attempt, good or bad.
    const ceremony = await this.ceremonies.finish(challenge, 'passkey-signin');
    const passkey = await this.store.passkeyById(response.id);
    const operatorId = passkey?.operatorId ?? null;
    if (!ceremony) return { ok: false, failure: 'unknown-challenge', operatorId };
    if (!passkey) return { ok: false, failure: 'unknown-credential', operatorId };
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== userHandleOf(passkey.operatorId))
      return { ok: false, failure: 'wrong-user', operatorId };
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: Buffer.from(passkey.publicKey, 'base64url'),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: true,
      });
      if (!verified.verified) return { ok: false, failure: 'not-verified', operatorId };
      newCounter = verified.authenticationInfo.newCounter;
    } catch (error) {
      return { ok: false, failure: 'not-verified', detail: (error as Error).message, operatorId };
    }
    // Compare-and-set on the counter read above: of two answers racing, one signs in.
    if (!(await this.store.usePasskey(passkey.credentialId, passkey.counter, newCounter, this.now())))
      return { ok: false, failure: 'counter-moved', operatorId };
    const operator = await this.store.operatorById(passkey.operatorId);
    if (operator?.state !== 'active') return { ok: false, failure: 'not-active', operatorId };
    return { ok: true, operator, passkey };
  }

  /**
   * Options to make a passkey for `person`, kept with `data` (what finishing needs, the passkey's
   * name `passkeyName` included) under its challenge; the person's other passkeys are excluded, so
   * that one authenticator holds one of theirs.
   */
  async registrationOptions(
    rp: RelyingParty,
    person: Pick<OperatorRecord, 'operatorId' | 'name' | 'email'>,
    data: CeremonyRecord['data'],
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.store.passkeysOf(person.operatorId);
    const options = await generateRegistrationOptions({
      rpName: 'Kassa',
      rpID: rp.rpId,
      userName: person.email,
      userID: Buffer.from(person.operatorId),
      userDisplayName: person.name,
      attestationType: 'none',
      timeout: Math.min(PROMPT_MS, CEREMONY_TTL_MS),
      excludeCredentials: existing.map(({ credentialId, transports }) => ({ id: credentialId, transports })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.ceremonies.start(options.challenge, 'passkey-register', { ...data, operatorId: person.operatorId });
    return options;
  }

  /**
   * The new passkey (not stored yet: the caller does, with the account it belongs to) and what its
   * ceremony kept; undefined when the answer is not to a challenge of ours or does not verify.
   */
  async verifyRegistration(
    rp: RelyingParty,
    response: RegistrationResponseJSON,
  ): Promise<{ data: CeremonyRecord['data']; passkey: PasskeyRecord } | undefined> {
    const challenge = challengeOf(response.response.clientDataJSON);
    const data = challenge ? await this.ceremonies.finish(challenge, 'passkey-register') : undefined;
    if (!challenge || !data?.operatorId) return undefined;
    try {
      const verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!verified.verified) return undefined;
      const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
      return {
        data,
        passkey: {
          credentialId: credential.id,
          operatorId: data.operatorId,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports ?? [],
          deviceType: credentialDeviceType,
          backedUp: credentialBackedUp,
          name: data.passkeyName ?? 'Passkey',
          createdAt: this.now(),
          lastUsedAt: null,
        },
      };
    } catch {
      return undefined;
    }
  }
}

/**
 * The merchant's operators as people (issue 37): their accounts, the credentials they act with (web
 * sessions, device tokens, personal API tokens, each stored as a hash of its secret), their
 * invitations, passkeys and the device sign-ins (RFC 8628) waiting for their approval. Every backend
 * implements `OperatorStore` alike and passes test/proxy/operator-store-contract.test.ts.
 */
import type { CredentialKind, OperatorState, Role } from '../../schemas/operators.ts';
import type { SigninCeremonies } from './signin-ceremonies.ts';

export interface OperatorRecord {
  /** `op_` + 128 random bits, base64url. */
  operatorId: string;
  name: string;
  /** Lower-cased; unique. */
  email: string;
  role: Role;
  state: OperatorState;
  /** Epoch ms. */
  createdAt: number;
  /** An operator id, or `cli` or `setup`. */
  createdBy: string;
  updatedAt: number;
  /** Bumped by every change: changes are compare-and-set on it. */
  revision: number;
  /** The identity provider's issuer and `sub` (`<issuer> <sub>`), unique; null until SSO is used. */
  ssoSubject: string | null;
}

export interface CredentialRecord {
  /** `cred_` + 128 random bits, base64url. */
  credentialId: string;
  operatorId: string;
  kind: CredentialKind;
  /** SHA-256 of the secret, hex: the secret itself is shown once and never kept. */
  tokenHash: string;
  /** The device's or the token's name; null for a web session. */
  name: string | null;
  /** An API token's own role (never above its owner's); null for web and device credentials, which act with the owner's. */
  role: Role | null;
  /** Epoch ms. */
  createdAt: number;
  /** Written at most once a minute. */
  lastUsedAt: number | null;
  /** Web and device credentials lapse when unused this long; null for API tokens. */
  idleExpiresAt: number | null;
  expiresAt: number;
  revokedAt: number | null;
  /** Where it was made from. */
  ip: string | null;
  userAgent: string | null;
}

export interface InvitationRecord {
  /** SHA-256 of the one-time token, hex. */
  tokenHash: string;
  /** `invite`: for one invited operator; `setup`: the first admin, before any operator exists. */
  purpose: 'invite' | 'setup';
  /** The invited operator; null for a setup link. */
  operatorId: string | null;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
}

export interface PasskeyRecord {
  /** The WebAuthn credential id, base64url; unique. */
  credentialId: string;
  operatorId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  /** The person's label for it. */
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export type DeviceState = 'pending' | 'approved' | 'denied' | 'used';

export interface DeviceAuthorizationRecord {
  /** SHA-256 of the device code, hex. */
  deviceCodeHash: string;
  /** 8 letters of USER_CODE_ALPHABET, without the dash; unique among those not expired. */
  userCode: string;
  clientName: string;
  createdAt: number;
  expiresAt: number;
  /** Seconds a client waits between polls; `slow_down` adds 5. */
  interval: number;
  lastPolledAt: number | null;
  state: DeviceState;
  /** Who approved or denied it. */
  operatorId: string | null;
  ip: string | null;
  userAgent: string | null;
  revision: number;
}

export type CreateOperatorOutcome = 'created' | 'email-taken' | 'sso-taken';

export type OperatorChange = Partial<Pick<OperatorRecord, 'name' | 'role' | 'state' | 'ssoSubject'>> & {
  updatedAt: number;
};

export type OperatorUpdateOutcome =
  | { outcome: 'updated'; operator: OperatorRecord }
  /** Gone, or changed since `revision` was read: read again. */
  | { outcome: 'moved' }
  /** It would leave the shop without an active admin. */
  | { outcome: 'last-admin' }
  | { outcome: 'sso-taken' };

export type RemoveOperatorOutcome = 'removed' | 'missing' | 'last-admin';

export type DeviceChange = Partial<
  Pick<DeviceAuthorizationRecord, 'state' | 'operatorId' | 'lastPolledAt' | 'interval'>
>;

export interface OperatorStore {
  /** Passkey and SSO sign-ins under way, which any instance may finish (signin-ceremonies.ts). */
  readonly ceremonies: SigninCeremonies;

  /** Stores a new account; an e-mail (or SSO subject) already taken leaves the store as it is. */
  createOperator(operator: OperatorRecord): Promise<CreateOperatorOutcome>;
  operatorById(operatorId: string): Promise<OperatorRecord | undefined>;
  operatorByEmail(email: string): Promise<OperatorRecord | undefined>;
  operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined>;
  /** Oldest first. */
  listOperators(): Promise<OperatorRecord[]>;
  /**
   * Applies `change` if the account is still at `revision`, bumping it; atomically refused when it
   * would leave no active admin while there is one (`leavesNoAdmin`).
   */
  updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome>;
  /** Deletes the account with its credentials, passkeys and invitations; never the last active admin. */
  removeOperator(operatorId: string): Promise<RemoveOperatorOutcome>;
  activeAdmins(): Promise<number>;

  insertCredential(credential: CredentialRecord): Promise<void>;
  /** The credential of a secret's hash with its owner: what every operator request asks, so one step. */
  credentialByHash(tokenHash: string): Promise<{ credential: CredentialRecord; operator: OperatorRecord } | undefined>;
  credentialById(credentialId: string): Promise<CredentialRecord | undefined>;
  /** An operator's credentials, revoked and expired ones included (until the store forgets them), newest first. */
  credentialsOf(operatorId: string): Promise<CredentialRecord[]>;
  /** Records a use: when, and the idle expiry it slides to. */
  touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void>;
  /** Revokes it; the credential as it was when still live, undefined when unknown or already revoked. */
  revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined>;

  insertInvitation(invitation: InvitationRecord): Promise<void>;
  /** The invitation of a token's hash, not used and not expired, without using it. */
  invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined>;
  /** Uses the invitation: the first caller gets it, every later one undefined. */
  takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined>;

  /** False when the WebAuthn credential id is registered already. */
  insertPasskey(passkey: PasskeyRecord): Promise<boolean>;
  passkeyById(credentialId: string): Promise<PasskeyRecord | undefined>;
  passkeysOf(operatorId: string): Promise<PasskeyRecord[]>;
  /** Records a sign-in's counter if the stored one is still `expected` (a replayed assertion loses). */
  usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean>;
  deletePasskey(operatorId: string, credentialId: string): Promise<boolean>;

  /** False when a live authorization has this user code already (draw another). */
  insertDevice(device: DeviceAuthorizationRecord): Promise<boolean>;
  deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined>;
  deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined>;
  /** Applies `change` if the authorization is still at `revision`: two polls or two approvals, one winner. */
  updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined>;
}

/** A device authorization is kept this long past its expiry, so a late poll is told `expired_token`. */
export const DEVICE_KEPT_MS = 3_600_000;

/** Whether an account counts as an admin who can act. */
export const isActiveAdmin = (operator: Pick<OperatorRecord, 'role' | 'state'>): boolean =>
  operator.role === 'admin' && operator.state === 'active';

/**
 * The last-admin rule every store applies inside its atomic step: a change that turns the only active
 * admin into something else is refused. (A shop that has no active admin yet, before its first one
 * signs in, is not held to it.)
 */
export function leavesNoAdmin(
  before: OperatorRecord,
  after: OperatorRecord | undefined,
  activeAdminsBefore: number,
): boolean {
  return isActiveAdmin(before) && !(after && isActiveAdmin(after)) && activeAdminsBefore <= 1;
}

/** The account after a change, revision bumped. */
export const changedOperator = (operator: OperatorRecord, change: OperatorChange): OperatorRecord => ({
  ...operator,
  ...change,
  revision: operator.revision + 1,
});

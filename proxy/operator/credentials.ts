/**
 * The secrets operators act with: a web session (the sign-in page's cookie), a device token (the
 * extension, RFC 8628) and personal API tokens (scripts). Each is 256 random bits after a prefix that
 * secret scanners know (`kassa_web_`, `kassa_dev_`, `kassa_pat_`), shown once and stored as its
 * SHA-256. Every request looks its credential up in the store, so a revocation, a suspension or a
 * lowered role takes effect at once on every instance.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { CredentialKind, Permission, Role } from '../../schemas/operators.ts';
import type { CredentialRecord, OperatorRecord, OperatorStore } from '../state/operators.ts';
import { lowerRole, permissionsOf } from './permissions.ts';

export const CREDENTIAL_PREFIXES: Readonly<Record<CredentialKind, string>> = {
  web: 'kassa_web_',
  device: 'kassa_dev_',
  api: 'kassa_pat_',
};

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** How long each kind lasts: unused (idle, sliding) and at most (absolute). */
export const CREDENTIAL_LIFETIMES = {
  web: { idleMs: 30 * MINUTE, absoluteMs: 12 * 60 * MINUTE },
  device: { idleMs: 7 * DAY, absoluteMs: 30 * DAY },
  api: { defaultDays: 90, maxDays: 365 },
} as const;

/** A credential's last use is written at most this often (each write is a store write on a read). */
const TOUCH_EVERY_MS = MINUTE;

/** `<prefix>` + 128 random bits, base64url: record ids (`op_`, `cred_`, `apr_` …). */
export const randomId = (prefix: string): string => `${prefix}${randomBytes(16).toString('base64url')}`;

/** 256 random bits, base64url: a secret that is shown once. */
export const randomSecret = (prefix = ''): string => `${prefix}${randomBytes(32).toString('base64url')}`;

/** What the store keeps of a secret. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const SECRET_SHAPE = /^kassa_(web|dev|pat)_[A-Za-z0-9_-]{43}$/;

/** Who is calling, as the handlers and the audit see them (`c.var.operator`). */
export interface OperatorPrincipal {
  operatorId: string;
  name: string;
  email: string;
  /** The role this credential acts with: the owner's, or an API token's own when that is lower. */
  role: Role;
  permissions: Permission[];
  credential: {
    id: string;
    kind: CredentialKind;
    name: string | null;
    expiresAt: number;
    idleExpiresAt: number | null;
  };
}

/** The credential does not open anything: unknown, malformed, expired, revoked, or its owner is not active. */
export class CredentialRefusedError extends Error {
  constructor() {
    super('This credential is not valid: unknown, expired or revoked, or its owner cannot act now');
    this.name = 'CredentialRefusedError';
  }
}

export interface IssueInput {
  operator: OperatorRecord;
  kind: CredentialKind;
  /** The device's or token's name. */
  name?: string | null;
  /** An API token's role, at most its owner's (checked by the caller, who can say why). */
  role?: Role | null;
  /** An API token's lifetime (days); web and device credentials have theirs. */
  expiresInDays?: number;
  ip?: string | null;
  userAgent?: string | null;
}

export class Credentials {
  constructor(
    private readonly store: OperatorStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes a credential; the secret is returned once and only its hash is kept. */
  async issue(input: IssueInput): Promise<{ secret: string; credential: CredentialRecord }> {
    const now = this.now();
    const secret = randomSecret(CREDENTIAL_PREFIXES[input.kind]);
    const lifetime =
      input.kind === 'api'
        ? { idleMs: null, absoluteMs: (input.expiresInDays ?? CREDENTIAL_LIFETIMES.api.defaultDays) * DAY }
        : CREDENTIAL_LIFETIMES[input.kind];
    const expiresAt = now + lifetime.absoluteMs;
    const credential: CredentialRecord = {
      credentialId: randomId('cred_'),
      operatorId: input.operator.operatorId,
      kind: input.kind,
      tokenHash: hashSecret(secret),
      name: input.name ?? null,
      role: input.kind === 'api' ? (input.role ?? input.operator.role) : null,
      createdAt: now,
      lastUsedAt: null,
      idleExpiresAt: lifetime.idleMs === null ? null : Math.min(now + lifetime.idleMs, expiresAt),
      expiresAt,
      revokedAt: null,
      ip: input.ip ?? null,
      userAgent: input.userAgent?.slice(0, 300) ?? null,
    };
    await this.store.insertCredential(credential);
    return { secret, credential };
  }

  /**
   * Who a secret belongs to, if it may act now: of one of `kinds`, known, not revoked, not expired,
   * its owner active. Its use is recorded (at most once a minute), sliding its idle expiry.
   */
  async resolve(secret: string, kinds: readonly CredentialKind[]): Promise<OperatorPrincipal> {
    const kind = SECRET_SHAPE.exec(secret)?.[1];
    const expected = kinds.find((each) => CREDENTIAL_PREFIXES[each] === `kassa_${kind}_`);
    // A malformed secret is refused before the store is asked.
    if (!expected) throw new CredentialRefusedError();
    const found = await this.store.credentialByHash(hashSecret(secret));
    const now = this.now();
    if (!found || !isLive(found.credential, now) || found.credential.kind !== expected)
      throw new CredentialRefusedError();
    const { credential, operator } = found;
    if (operator.state !== 'active') throw new CredentialRefusedError();
    if (credential.lastUsedAt === null || now - credential.lastUsedAt >= TOUCH_EVERY_MS) {
      const idleMs = credential.kind === 'api' ? null : CREDENTIAL_LIFETIMES[credential.kind].idleMs;
      credential.idleExpiresAt = idleMs === null ? null : Math.min(now + idleMs, credential.expiresAt);
      credential.lastUsedAt = now;
      await this.store.touchCredential(credential.credentialId, now, credential.idleExpiresAt);
    }
    return principalOf(operator, credential);
  }

  /** A web session's CSRF token: derived from its secret, so nothing more is stored, and useless without the cookie. */
  csrfTokenFor(secret: string): string {
    return createHmac('sha256', secret).update('kassa-csrf').digest('base64url');
  }
}

/** Whether a credential may still be used at `now`. */
export const isLive = (credential: CredentialRecord, now: number): boolean =>
  credential.revokedAt === null &&
  now < credential.expiresAt &&
  (credential.idleExpiresAt === null || now < credential.idleExpiresAt);

export function principalOf(operator: OperatorRecord, credential: CredentialRecord): OperatorPrincipal {
  // An API token never acts above its owner, even after the owner's role was lowered.
  const role = credential.role ? lowerRole(credential.role, operator.role) : operator.role;
  return {
    operatorId: operator.operatorId,
    name: operator.name,
    email: operator.email,
    role,
    permissions: permissionsOf(role),
    credential: {
      id: credential.credentialId,
      kind: credential.kind,
      name: credential.name,
      expiresAt: credential.expiresAt,
      idleExpiresAt: credential.idleExpiresAt,
    },
  };
}

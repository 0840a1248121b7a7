/** The operators' records as the API shows them: times in ISO 8601, never a hash or a secret. */
import type { AuditRecordView } from '../../schemas/audit.ts';
import type { CredentialView, OperatorView } from '../../schemas/operators.ts';
import type { AuditRecord } from '../state/audit.ts';
import type { CredentialRecord, OperatorRecord, PasskeyRecord } from '../state/operators.ts';
import { isLive } from './credentials.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const operatorView = (operator: OperatorRecord): OperatorView => ({
  operatorId: operator.operatorId,
  name: operator.name,
  email: operator.email,
  role: operator.role,
  state: operator.state,
  createdAt: iso(operator.createdAt)!,
  createdBy: operator.createdBy,
  updatedAt: iso(operator.updatedAt)!,
  sso: operator.ssoSubject !== null,
});

export const credentialView = (credential: CredentialRecord, currentId: string | null): CredentialView => ({
  credentialId: credential.credentialId,
  kind: credential.kind,
  name: credential.name,
  role: credential.role,
  createdAt: iso(credential.createdAt)!,
  lastUsedAt: iso(credential.lastUsedAt),
  expiresAt: iso(credential.expiresAt)!,
  idleExpiresAt: iso(credential.idleExpiresAt),
  revokedAt: iso(credential.revokedAt),
  live: isLive(credential, Date.now()),
  current: credential.credentialId === currentId,
  ip: credential.ip,
  userAgent: credential.userAgent,
});

export const passkeyView = (passkey: PasskeyRecord) => ({
  credentialId: passkey.credentialId,
  name: passkey.name,
  deviceType: passkey.deviceType,
  backedUp: passkey.backedUp,
  transports: passkey.transports,
  createdAt: iso(passkey.createdAt)!,
  lastUsedAt: iso(passkey.lastUsedAt),
});

export const auditRecordView = (record: AuditRecord): AuditRecordView => ({ ...record, at: iso(record.at)! });

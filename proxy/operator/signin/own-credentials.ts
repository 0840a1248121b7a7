import type { CredentialSummary } from '../../../schemas/operator-signin.ts';
import type { CredentialRecord, OperatorStore } from '../../state/operators.ts';
import { isLive, type OperatorPrincipal } from '../credentials.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A credential as its owner sees it: never its secret or hash. */
export const credentialSummary = (credential: CredentialRecord, currentId: string | null): CredentialSummary => ({
  credentialId: credential.credentialId,
  kind: credential.kind,
  name: credential.name,
  role: credential.role,
  createdAt: iso(credential.createdAt)!,
  lastUsedAt: iso(credential.lastUsedAt),
  expiresAt: iso(credential.expiresAt)!,
  idleExpiresAt: iso(credential.idleExpiresAt),
  ip: credential.ip,
  userAgent: credential.userAgent,
  current: credential.credentialId === currentId,
});

/**
 * The person's live credentials, newest first: where they are signed in (browsers and extensions)
 * and their personal API tokens.
 */
export async function ownCredentials(
  store: OperatorStore,
  person: OperatorPrincipal,
  now = Date.now(),
): Promise<{ sessions: CredentialSummary[]; tokens: CredentialSummary[] }> {
  const live = (await store.credentialsOf(person.operatorId)).filter((credential) => isLive(credential, now));
  const summaries = live.map((credential) => credentialSummary(credential, person.credential.id));
  return {
    sessions: summaries.filter((credential) => credential.kind !== 'api'),
    tokens: summaries.filter((credential) => credential.kind === 'api'),
  };
}

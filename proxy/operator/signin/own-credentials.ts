import type { CredentialView } from '../../../schemas/operators.ts';
import type { OperatorStore } from '../../state/operators.ts';
import { isLive, type OperatorPrincipal } from '../credentials.ts';
import { credentialView } from '../operator-views.ts';

/**
 * What the page lists of the person's live credentials, newest first: where they are signed in
 * (browsers and extensions) and their personal API tokens.
 */
export async function ownCredentials(
  store: OperatorStore,
  person: OperatorPrincipal,
  now = Date.now(),
): Promise<{ sessions: CredentialView[]; tokens: CredentialView[] }> {
  const live = (await store.credentialsOf(person.operatorId)).filter((credential) => isLive(credential, now));
  const views = live.map((credential) => credentialView(credential, person.credential.id));
  return {
    sessions: views.filter((credential) => credential.kind !== 'api'),
    tokens: views.filter((credential) => credential.kind === 'api'),
  };
}

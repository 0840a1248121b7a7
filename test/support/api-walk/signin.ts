import { http } from '../http.ts';
import { asBrowser, fromPage, invite, passkeySignin, registerByLink } from '../signin.ts';
import { SoftAuthenticator } from '../soft-authenticator.ts';
import type { Stack } from '../stack.ts';

/** Every sign-in operation, each with a success (and its answers checked as every answer here is). */
export async function walkSignin(stack: Stack): Promise<void> {
  const origin = stack.proxy.origin;
  const invited = await invite(stack.proxy, 'finance');
  const link = { link: 'invitation', token: invited.token };
  await fromPage(origin, '/operator/link', link);
  const authenticator = new SoftAuthenticator(origin);
  await registerByLink(origin, authenticator, { ...link, passkeyName: 'Laptop' });
  const { session } = await passkeySignin(authenticator);
  const browser = asBrowser(session!);
  await browser('/api/operator/sessions');
  const token = await browser('/api/operator/tokens', { body: { name: 'Script', role: 'viewer' } });
  await browser('/api/operator/tokens');
  await browser(`/api/credentials/${token.body.credential.credentialId}`, { method: 'DELETE' });
  const options = await browser('/api/operator/passkeys/options', { body: { passkeyName: 'Key' } });
  const key = new SoftAuthenticator(origin);
  const added = await browser('/api/operator/passkeys', { body: { response: key.register(options.body.options) } });
  await browser('/api/operator/passkeys');
  await browser(`/api/operator/passkeys/${added.body.credentialId}`, { method: 'DELETE' });
  // The pages on localhost, where browsers allow passkeys; on 127.0.0.1 they redirect there.
  for (const path of ['/operator', '/operator/device', '/operator/invite', '/operator/setup', '/operator/counter'])
    await http(`${origin}${path}`);
  const onLocalhost = asBrowser({ ...session!, origin: origin.replace('127.0.0.1', 'localhost') });
  const page = await onLocalhost('/operator');
  for (const asset of page.text.match(/\/operator\/(scripts|styles)\/[\w.-]+/g) ?? []) await http(`${origin}${asset}`);
  await onLocalhost('/operator/device');
  await onLocalhost('/operator/counter');
  await onLocalhost('/operator/invite');
  await onLocalhost('/operator/setup');
  await browser('/operator/signout', { method: 'POST' });
}

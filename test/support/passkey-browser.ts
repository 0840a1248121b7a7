/**
 * A browser profile with Chromium's virtual authenticator (DevTools Protocol `WebAuthn` domain): a
 * platform authenticator that holds resident keys and verifies its user, as an operator's laptop,
 * tablet or phone does, for the operators' pages.
 */
import type { Browser, BrowserContext, CDPSession } from 'playwright';
import { watchProblems } from './browser.ts';

export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

/** A browser profile with a platform authenticator that holds resident keys and verifies its user. */
export async function browserWithPasskeys(browser: Browser, locale = 'en-US') {
  const context: BrowserContext = await browser.newContext({ locale });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () =>
    ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] })
      .credentials;
  /** Replaces a credential the authenticator holds by `change` of it (another key, an older counter). */
  const replace = async (credential: VirtualCredential, change: Partial<VirtualCredential>) => {
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, ...change } });
  };
  return { context, page, problems, credentials, replace, cdp, authenticatorId };
}

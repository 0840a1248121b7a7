/**
 * The operators' page in real Chromium with its virtual authenticator (DevTools Protocol `WebAuthn`
 * domain: ctap2, internal, resident keys, user verification): an invited operator makes a passkey,
 * signs in, sees their sessions and signs out; an unknown passkey, another key's signature, a
 * replayed answer and a counter gone back are refused with the same words; the limit on failed
 * sign-ins engages; the extension's device sign-in is approved on the page; and the page is
 * axe-clean in its five languages, light and dark, under its Content-Security-Policy.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright';
import { WORDS, fill, PAGE_LANGUAGES } from '../../proxy/operator/signin/words/index.ts';
import { axeViolations } from '../support/axe.ts';
import { launchChromium } from '../support/browser.ts';
import { browserWithPasskeys } from '../support/passkey-browser.ts';
import { http } from '../support/http.ts';
import { as } from '../support/operators.ts';
import { invite } from '../support/signin.ts';
import { startStack, type Stack } from '../support/stack.ts';

const en = WORDS.en;
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A P-256 private key as the DevTools Protocol takes it (PKCS#8, base64). */
const anotherKey = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'der', type: 'pkcs8' })
    .toString('base64');

/**
 * Presses "Sign in with a passkey": the proxy's answer, and what the status line then says (signed
 * in, the page shows `heading`, the signed-in view of the same address).
 */
async function signInOnPage(
  page: Page,
  heading: string | RegExp = /^Signed in as /,
): Promise<{ status: number; body: unknown; said: string }> {
  const answer = page.waitForResponse((response) => response.url().endsWith('/operator/signin'));
  await page.getByRole('button', { name: en.signinPasskey }).click();
  const response = await answer;
  if (response.status() === 200) {
    // The page reloads at once into the signed-in view: its answer's body is gone with it.
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    return { status: 200, body: null, said: '' };
  }
  const body: unknown = await response.json();
  const line = page.locator('[data-status="signin"]');
  await page.waitForFunction(
    (working) => document.querySelector('[data-status="signin"]')?.textContent !== working,
    en.working,
  );
  return { status: response.status(), body, said: (await line.textContent()) ?? '' };
}

/** Signs the page's person out, and waits for the sign-in it shows then. */
async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: en.signOut, exact: true }).click();
  await page.getByRole('button', { name: en.signinPasskey }).waitFor();
}

/** Whether the browser holds a session cookie of the proxy's. */
const hasSession = async (context: BrowserContext) =>
  (await context.cookies()).some((each) => each.name === '__Host-kassa_session');

describe('proxy: the operators’ page in Chromium with a virtual authenticator', { timeout: 600_000 }, () => {
  let stack: Stack;
  let browser: Browser;
  /** Passkeys are for a domain, never an IP address: the page is opened on localhost. */
  let origin: string;

  before(async () => {
    stack = await startStack();
    origin = stack.proxy.origin.replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /**
   * An invited operator who took up their invitation on this page (its link opened at `linkOrigin`):
   * signed in, with one passkey.
   */
  async function takeUpInvitation(page: Page, role: 'finance' | 'admin' = 'finance', linkOrigin = origin) {
    const invited = await invite(stack.proxy, role, `Ada ${randomBytes(2).toString('hex')}`);
    await page.goto(`${linkOrigin}/operator/invite#${invited.token}`);
    await page.getByText(fill(en.inviteIntro, { name: '', role: '' }).slice(2, 30)).waitFor();
    await page.getByLabel(en.passkeyName).fill('This laptop');
    await page.getByRole('button', { name: en.makePasskey }).click();
    await page.waitForURL(`${origin}/operator`);
    await page.getByRole('heading', { level: 1, name: /^Signed in as Ada / }).waitFor();
    return invited;
  }

  it('an invited operator makes a passkey, signs in, sees their sessions and signs out', async () => {
    const { context, page, problems, credentials } = await browserWithPasskeys(browser);
    try {
      // The link as the proxy prints it on this machine, on 127.0.0.1: the page moves to localhost, token and all.
      const invited = await takeUpInvitation(page, 'finance', stack.proxy.origin);
      const [passkey] = await credentials();
      assert.equal(passkey?.rpId, 'localhost');
      assert.equal(passkey?.isResidentCredential, true, 'a discoverable credential');
      assert.equal(Buffer.from(passkey.userHandle, 'base64').toString(), invited.operatorId);
      assert.equal(new URL(page.url()).hash, '', 'the link left the address bar');
      // The cookie, as the browser keeps it.
      const [cookie] = (await context.cookies()).filter((each) => each.name === '__Host-kassa_session');
      assert.deepEqual(
        [cookie?.secure, cookie?.httpOnly, cookie?.sameSite, cookie?.path, cookie?.domain],
        [true, true, 'Strict', '/', 'localhost'],
      );
      assert.equal(await page.evaluate(() => document.cookie.includes('kassa_session')), false, 'not for scripts');

      await signOut(page);
      const signedIn = await signInOnPage(page);
      assert.equal(signedIn.status, 200);
      const sessions = page.getByRole('region', { name: en.sessionsHeading }).getByRole('row');
      assert.equal(await sessions.count(), 2, 'the header and this browser: signing out ended the first session');
      await page.getByText(en.thisBrowser).waitFor();
      assert.equal(await page.getByRole('row').filter({ hasText: 'This laptop' }).count(), 1, 'its passkey listed');

      await signOut(page);
      assert.equal(await hasSession(context), false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('refuses an unknown passkey, another key’s signature, a replayed answer and a counter gone back with the same words', async () => {
    const { context, page, problems, credentials, replace } = await browserWithPasskeys(browser);
    try {
      await takeUpInvitation(page);
      await signOut(page);
      const [own] = await credentials();
      const refusals: Array<{ what: string; status: number; body: unknown; said: string }> = [];

      // A passkey for this site the proxy never registered.
      await replace(own!, { credentialId: randomBytes(16).toString('base64'), privateKey: anotherKey() });
      refusals.push({ what: 'unknown passkey', ...(await signInOnPage(page)) });
      const [stranger] = await credentials();
      // The proxy's passkey id, signed with another key.
      await replace(stranger!, { credentialId: own!.credentialId, privateKey: anotherKey() });
      refusals.push({ what: 'another key’s signature', ...(await signInOnPage(page)) });
      const [forged] = await credentials();
      await replace(forged!, { privateKey: own!.privateKey });

      // A good sign-in, its answer captured and sent again (the page's own fetch, its Origin).
      const sent = page.waitForRequest((request) => request.url().endsWith('/operator/signin'));
      assert.equal((await signInOnPage(page)).status, 200);
      const replayedBody = (await sent).postData()!;
      const replayed = await page.evaluate(async (body) => {
        const response = await fetch('/operator/signin', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        return { status: response.status, body: (await response.json()) as unknown };
      }, replayedBody);
      refusals.push({ what: 'replayed answer', ...replayed, said: '' });

      // The same key, its counter set back: a clone of the passkey would answer so.
      await signOut(page);
      const [used] = await credentials();
      assert.ok(used!.signCount >= 2, `counter ${used!.signCount}`);
      await replace(used!, { signCount: 0 });
      refusals.push({ what: 'counter gone back', ...(await signInOnPage(page)) });

      for (const refusal of refusals) {
        assert.equal(refusal.status, 401, refusal.what);
        assert.deepEqual(refusal.body, { error: 'The passkey did not sign you in' }, refusal.what);
      }
      const said = refusals.filter((refusal) => refusal.said).map((refusal) => refusal.said);
      assert.deepEqual(said, [en.signinFailed, en.signinFailed, en.signinFailed], 'the page says the same each time');
      assert.equal(await hasSession(context), false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('after five failed sign-ins of an account, even its own passkey waits, and the page says for how long', async () => {
    const { context, page, credentials, replace } = await browserWithPasskeys(browser);
    try {
      await takeUpInvitation(page);
      await signOut(page);
      const [own] = await credentials();
      await replace(own!, { privateKey: anotherKey() });
      for (let attempt = 1; attempt <= 5; attempt++)
        assert.equal((await signInOnPage(page)).said, en.signinFailed, `attempt ${attempt}`);
      const [forged] = await credentials();
      await replace(forged!, { privateKey: own!.privateKey });
      const held = await signInOnPage(page);
      assert.equal(held.status, 429);
      const seconds = /(\d+)/.exec(held.said)?.[1];
      assert.equal(held.said, fill(en.limited, { seconds: seconds! }));
      assert.ok(Number(seconds) > 800, `about 15 minutes, not ${seconds} s`);
    } finally {
      await context.close();
    }
  });

  it('approves the extension’s device sign-in on /operator/device after a passkey sign-in; the poll then gets the token', async () => {
    const { context, page, problems } = await browserWithPasskeys(browser);
    try {
      const invited = await takeUpInvitation(page);
      await signOut(page);

      // The extension asks for a code and starts polling.
      const code = await http(`${stack.proxy.origin}/operator/device/code`, {
        body: { client_name: 'Kassa extension on Chromium' },
      });
      const poll = () =>
        http(`${stack.proxy.origin}/operator/device/token`, {
          body: { grant_type: GRANT, device_code: code.body.device_code },
        });
      assert.equal((await poll()).body.error, 'authorization_pending');

      // The operator opens the page it shows, signs in there, and sees what asks.
      await page.goto(code.body.verification_uri_complete.replace('127.0.0.1', 'localhost'));
      await page.getByText(fill(en.deviceSigninFirst, { code: code.body.user_code })).waitFor();
      assert.equal((await signInOnPage(page, en.deviceHeading)).status, 200);
      const details = page.locator('dl');
      assert.equal(await details.locator('[data-user-code]').textContent(), code.body.user_code);
      await details.getByText('Kassa extension on Chromium').waitFor();
      assert.match((await details.textContent()) ?? '', /127\.0\.0\.1/, 'from where it asked');
      await details.locator('time').waitFor();

      await page.getByRole('button', { name: en.approve }).click();
      await page.getByText(en.deviceApproved).waitFor();
      assert.equal(await page.getByRole('button', { name: en.approve }).isVisible(), false, 'decided once');

      const token = await poll();
      assert.equal(token.status, 200, token.text);
      assert.match(token.body.access_token, /^kassa_dev_/);
      const me = await as(stack.proxy.origin, { headers: { Authorization: `Bearer ${token.body.access_token}` } })(
        '/api/operator/me',
      );
      assert.deepEqual([me.body.operatorId, me.body.credential.kind], [invited.operatorId, 'device']);
      // The device is listed among where the person is signed in.
      await page.goto(`${origin}/operator`);
      await page.getByRole('cell', { name: /Kassa extension on Chromium/ }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('speaks the browser’s language, switches on request (keeping a link’s token), and its script speaks it too', async () => {
    const { context, page, problems } = await browserWithPasskeys(browser, 'nl-NL');
    try {
      await page.goto(`${origin}/operator`);
      assert.equal(await page.getAttribute('html', 'lang'), 'nl');
      await page.getByRole('button', { name: WORDS.nl.signinPasskey }).waitFor();
      const invited = await invite(stack.proxy, 'support', 'Brigitte');
      await page.goto(`${origin}/operator/invite#${invited.token}`);
      await page.getByText(fill(WORDS.nl.inviteIntro, { name: 'Brigitte', role: WORDS.nl.roles.support })).waitFor();
      await page.getByRole('navigation', { name: WORDS.nl.language }).getByRole('link', { name: 'Deutsch' }).click();
      await page.waitForURL(/\?lang=de#/);
      assert.equal(new URL(page.url()).hash, `#${invited.token}`, 'the token came along');
      await page.getByText(fill(WORDS.de.inviteIntro, { name: 'Brigitte', role: WORDS.de.roles.support })).waitFor();
      // The choice stays (a cookie), over the browser's language.
      await page.goto(`${origin}/operator/invite#${'x'.repeat(43)}`);
      assert.equal(await page.getAttribute('html', 'lang'), 'de');
      await page.getByText(WORDS.de.linkInvalid).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('is axe-clean in its five languages, light and dark, signed out and in, under a CSP without inline script', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const visitor = await browserWithPasskeys(browser);
      const person = await browserWithPasskeys(browser);
      try {
        await visitor.page.emulateMedia({ colorScheme });
        await person.page.emulateMedia({ colorScheme });
        await takeUpInvitation(person.page, 'admin');
        const invitation = (await invite(stack.proxy, 'viewer')).token;
        const code = await http(`${stack.proxy.origin}/operator/device/code`, {
          body: { client_name: 'Kassa extension' },
        });
        for (const language of PAGE_LANGUAGES) {
          const words = WORDS[language];
          const check = async (page: Page, path: string, ready: string) => {
            await page.goto(`${origin}${path}`);
            await page.getByText(ready).first().waitFor();
            assert.equal(await page.getAttribute('html', 'lang'), language);
            found.push(...(await axeViolations(page, `${path} ${colorScheme}`)));
          };
          await check(visitor.page, `/operator?lang=${language}`, words.signinPasskey);
          await check(visitor.page, `/operator/invite?lang=${language}#${invitation}`, words.makePasskey);
          await check(visitor.page, `/operator/setup?lang=${language}#${'x'.repeat(43)}`, words.linkInvalid);
          await check(person.page, `/operator?lang=${language}`, words.tokensHeading);
          await check(person.page, `/operator/device?user_code=${code.body.user_code}&lang=${language}`, words.approve);
        }
        // A new token, shown once in its box.
        await person.page.goto(`${origin}/operator?lang=en`);
        await person.page.getByLabel(en.name, { exact: true }).fill('Axe');
        await person.page.getByRole('button', { name: en.createToken }).click();
        await person.page.getByText(en.tokenShown).waitFor();
        assert.match(await person.page.inputValue('#new-token'), /^kassa_pat_/);
        found.push(...(await axeViolations(person.page, `the new token ${colorScheme}`)));
        assert.deepEqual([...visitor.problems, ...person.problems], []);
      } finally {
        await visitor.context.close();
        await person.context.close();
      }
    }
    assert.deepEqual(found, []);
    const page = await http(`${origin}/operator`);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /require-trusted-types-for 'script'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const scripts = [...page.text.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1]!);
    assert.deepEqual(
      scripts.map((attributes) =>
        /\bsrc="/.test(attributes) ? 'src' : /type="application\/json"/.test(attributes) ? 'data' : 'inline',
      ),
      ['src', 'data'],
      'one script from the proxy, one block of words, nothing inline',
    );
  });
});

/**
 * Signing in with the company's OpenID Connect provider, in Chromium against a real provider
 * (oidc-provider on 127.0.0.1:0): the group claim mapped to a role (an account made on first sign-in,
 * its role following the claim after), a person outside the allowed domains or in no mapped group
 * refused in words, and a tampered state, a wrong nonce, or a return to another browser refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { WORDS } from '../../proxy/operator/signin/words/index.ts';
import { launchChromium, watchProblems } from '../support/browser.ts';
import { startIdentityProvider, type IdentityProvider } from '../support/identity-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

const en = WORDS.en;

describe('proxy: operators sign in with the company’s OpenID Connect provider', { timeout: 300_000 }, () => {
  let idp: IdentityProvider;
  let stack: Stack;
  let browser: Browser;
  let origin: string;

  before(async () => {
    idp = await startIdentityProvider();
    stack = await startStack({
      env: {
        KASSA_OIDC_ISSUER: idp.issuer,
        KASSA_OIDC_CLIENT_ID: idp.clientId,
        KASSA_OIDC_CLIENT_SECRET: idp.clientSecret,
        KASSA_OIDC_ALLOWED_DOMAINS: 'shop.test',
        KASSA_OIDC_ROLES: 'kassa-admins:admin,kassa-finance:finance,kassa-support:support',
      },
    });
    origin = stack.proxy.origin.replace('127.0.0.1', 'localhost');
    idp.register(`${origin}/operator/sso/callback`);
    idp.people.set('ada', {
      email: 'Ada@Shop.test',
      email_verified: true,
      name: 'Ada Lovelace',
      groups: ['staff', 'kassa-finance'],
    });
    idp.people.set('mallory', { email: 'mallory@elsewhere.test', name: 'Mallory', groups: ['kassa-admins'] });
    idp.people.set('bob', { email: 'bob@shop.test', name: 'Bob', groups: ['marketing'] });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
    await idp?.stop();
  });

  const store = () => stack.proxy.services.store.operators;
  /** The audit trail's records of `action`, each as its JSON. */
  const audited = async (action: string) =>
    (await stack.proxy.services.store.audit.list({ action, limit: 1000 }))
      .filter((record) => record.action === action)
      .map((record) => JSON.stringify(record));
  /** Presses "Sign in with your company account" and waits for where the trip ends. */
  async function ssoSignin(page: Page, sub: string): Promise<void> {
    idp.signsInNext(sub);
    await page.goto(`${origin}/operator`);
    // The trip ends at the callback: before it, the page's own URL would already match where it ends.
    const back = page.waitForResponse((response) => response.url().includes('/operator/sso/callback'));
    await page.getByRole('button', { name: en.signinSso }).click();
    await back;
    await page.waitForURL((url) => url.origin === origin && url.pathname !== '/operator/sso', { timeout: 15_000 });
    await page.waitForLoadState();
  }

  it('a person in a mapped group signs in: an account made with that role, which then follows the claim', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await ssoSignin(page, 'ada');
      await page.getByRole('heading', { level: 1, name: 'Signed in as Ada Lovelace' }).waitFor();
      assert.equal(page.url(), `${origin}/operator`);
      const ada = (await store().operatorByEmail('ada@shop.test'))!;
      assert.deepEqual(
        [ada.role, ada.state, ada.createdBy, ada.ssoSubject],
        ['finance', 'active', 'sso', `${idp.issuer} ada`],
      );
      const [cookie] = (await context.cookies()).filter((each) => each.name === '__Host-kassa_session');
      assert.equal(cookie?.sameSite, 'Strict', 'the page after the provider had the Strict cookie sent');
      assert.equal(
        (await context.cookies()).some((each) => each.name === '__Host-kassa_sso'),
        false,
        'the trip’s cookie is gone',
      );

      // The company moves her to the admins: the next sign-in makes her an admin.
      idp.people.set('ada', { ...idp.people.get('ada')!, groups: ['kassa-admins'] });
      await page.getByRole('button', { name: en.signOut, exact: true }).click();
      // Signed out first: a navigation started now would abort the sign-out's own (net::ERR_ABORTED).
      await page.getByRole('button', { name: en.signinSso }).waitFor();
      await ssoSignin(page, 'ada');
      await page.getByRole('heading', { level: 1, name: 'Signed in as Ada Lovelace' }).waitFor();
      await page.locator('.badge', { hasText: en.roles.admin }).waitFor();
      assert.equal((await store().operatorById(ada.operatorId))?.role, 'admin');
      assert.ok((await audited('operator.added')).some((line) => line.includes('"via":"system"')));
      assert.ok(
        (await audited('operator.role_changed')).some((line) => line.includes('"finance"') && line.includes('"admin"')),
      );
      assert.match(
        (await stack.operator('/metrics')).text,
        /kassa_operator_signins_total\{method="sso",outcome="ok"\} 2/,
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('refuses in words a person outside the allowed domains, and one in no mapped group; no account is made', async () => {
    for (const [sub, words] of [
      ['mallory', en.sso.domain],
      ['bob', en.sso['no-role']],
    ] as const) {
      const context = await browser.newContext();
      const page = await context.newPage();
      try {
        const refused = page.waitForResponse((response) => response.url().includes('/operator/sso/callback'));
        await ssoSignin(page, sub);
        assert.equal((await refused).status(), 403, sub);
        await page.getByText(words).waitFor();
        await page.getByRole('button', { name: en.signinPasskey }).waitFor();
        assert.equal(
          (await context.cookies()).some((each) => each.name === '__Host-kassa_session'),
          false,
          sub,
        );
      } finally {
        await context.close();
      }
    }
    assert.equal(await store().operatorByEmail('mallory@elsewhere.test'), undefined);
    assert.equal(await store().operatorByEmail('bob@shop.test'), undefined);
    assert.ok((await audited('signin.failed')).some((line) => line.includes('"why":"domain"')));
    assert.ok((await audited('signin.failed')).some((line) => line.includes('"why":"no-role"')));
  });

  it('refuses a tampered state, a wrong nonce, and a return to a browser that did not start the trip', async () => {
    const attempts: Array<[string, NonNullable<IdentityProvider['tamper']>]> = [
      // The provider's answer comes back with another state than the one Kassa sent.
      ['tampered state', { redirect: (location) => void location.searchParams.set('state', 'forged-state') }],
      // The authorization request reaches the provider with another nonce: its ID token carries that one.
      [
        'wrong nonce',
        { request: (url) => void (url.pathname === '/auth' && url.searchParams.set('nonce', 'forged-nonce')) },
      ],
    ];
    for (const [what, tamper] of attempts) {
      const context = await browser.newContext();
      const page = await context.newPage();
      idp.tamper = tamper;
      try {
        const refused = page.waitForResponse((response) => response.url().includes('/operator/sso/callback'));
        await ssoSignin(page, 'ada');
        assert.equal((await refused).status(), 400, what);
        await page.getByText(en.sso.failed).waitFor();
        assert.equal(
          (await context.cookies()).some((each) => each.name === '__Host-kassa_session'),
          false,
          what,
        );
      } finally {
        idp.tamper = null;
        await context.close();
      }
    }
    // The provider's answer for one browser, taken to another (a login CSRF): that browser started no trip.
    const attacker = await browser.newContext();
    const victim = await browser.newContext();
    let callback = '';
    idp.tamper = {
      redirect: (location) => {
        if (!location.pathname.endsWith('/operator/sso/callback')) return;
        callback = location.href;
        location.href = `${idp.issuer}/.well-known/openid-configuration`;
      },
    };
    try {
      idp.signsInNext('ada');
      const page = await attacker.newPage();
      await page.goto(`${origin}/operator`);
      await page.getByRole('button', { name: en.signinSso }).click();
      await page.waitForURL(/openid-configuration/);
      assert.match(callback, /[?&]code=/);
      const victimPage = await victim.newPage();
      const answer = await victimPage.goto(callback);
      assert.equal(answer?.status(), 400);
      await victimPage.getByText(en.sso.failed).waitFor();
      assert.equal(
        (await victim.cookies()).some((each) => each.name === '__Host-kassa_session'),
        false,
      );
    } finally {
      idp.tamper = null;
      await attacker.close();
      await victim.close();
    }
    const failed = (await audited('signin.failed')).filter((line) => line.includes('"method":"sso"'));
    assert.ok(
      failed.some((line) => /state/i.test(line)),
      'the trail says the state did not match',
    );
    assert.ok(
      failed.some((line) => /nonce/i.test(line)),
      'and the nonce',
    );
    assert.ok(failed.some((line) => line.includes('no sign-in under way in this browser')));
  });
});

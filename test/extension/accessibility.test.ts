/**
 * axe on the built extension's views in real Chromium against a real proxy, emulator and chains:
 * the popup's and the side panel's tabs (the wallet with no key yet, locked, and with its balances
 * and activity after a real transfer; the orders form with its per-field messages and a refused
 * delete; the payments detail pane; the language setting; the events and an event's detail pane; the
 * on-ramp's purchases and a delayed one's detail with its refund form; Settings while signing in and
 * signed in; an approval request open and its rejection; the team with a person open; the audit with
 * a record open; an event destination open with its delivery log and the form that adds one; the
 * merchant keys with the form that makes one, these at 360 px without sideways scrolling), and the approval window
 * (connect while locked, a transfer, a purchase's ownership proof), in each of the five languages and
 * in light and dark (prefers-color-scheme). No rule is switched off.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { hexlify, toQuantity, toUtf8Bytes, Transaction } from 'ethers';
import type { Page } from 'playwright';
import { eventsSecret } from '../../demo/demo.ts';
import { UI_CHANNEL, UI_LANGUAGES, type LanguageChoice } from '../../extension/channels.ts';
import { axeViolations } from '../support/axe.ts';
import { anvilAccount } from '../support/chains.ts';
import {
  approvalWindow as openedApproval,
  configure,
  importVaultKey,
  launchExtension,
  overflowing,
  press,
  providerCall as call,
  startSignIn,
  type LoadedExtension,
} from '../support/extension.ts';
import { seedOperatorViews } from '../support/operator-views-seed.ts';
import { as, type TestOperator } from '../support/operators.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'an accessible password';
const ACCOUNT = anvilAccount(5);
const THEMES = ['light', 'dark'] as const;

/** What is wider than a 360 px side panel, as problems of `what`. */
const fits = (found: string[], what: string) => found.map((line) => `${what}: wider than the panel: ${line}`);

function discover(): void {
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = (event as CustomEvent).detail as { info: { rdns: string }; provider: unknown };
    if (detail.info.rdns === 'dev.kassa.wallet') Object.assign(window, { kassa: detail.provider });
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

describe('extension: axe in every view, five languages, light and dark', () => {
  let server: Server;
  let origin: string;
  let stack: Stack;
  let extension: LoadedExtension;
  let transactionId: string;
  let processingOrder: string;
  let delayedPurchase: string;
  let colleague: TestOperator;
  let destinationId: string;
  /** What axe found in the states only `before` passes through, by state. */
  const walletProblems: string[] = [];
  const approvalProblems: string[] = [];
  const signingProblems: string[] = [];

  /** Opens an extension page, light. */
  const open = async (path: string, width = 400): Promise<Page> => {
    const page = await extension.context.newPage();
    await page.setViewportSize({ width, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(path.startsWith('chrome-extension://') ? path : `chrome-extension://${extension.id}/${path}`);
    return page;
  };
  /**
   * What axe finds on the page as it stands, light then dark: the scheme is switched on the open page
   * (the views follow prefers-color-scheme in CSS alone, with no transition), so each state is reached
   * once and checked in both. `fit`: also what is wider than a 360 px side panel.
   */
  const inEveryTheme = async (page: Page, what: string, fit = false): Promise<string[]> => {
    const problems = fit ? fits(await overflowing(page), what) : [];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      problems.push(...(await axeViolations(page, `${what} ${theme}`)));
    }
    await page.emulateMedia({ colorScheme: 'light' });
    return problems;
  };
  const setLanguage = async (language: LanguageChoice) => {
    const page = await extension.openPage('ui/popup.html?tab=settings');
    await page.evaluate(
      ([channel, language]) => chrome.runtime.sendMessage({ channel, request: { kind: 'language.set', language } }),
      [UI_CHANNEL, language] as const,
    );
    await page.close();
  };
  const approvalWindow = () => openedApproval(extension);

  /**
   * A page in a passing state (an approval window before it is answered, the wallet before a key or
   * while locked), opened again in each language and theme.
   */
  const checkEveryLanguage = async (url: string, what: string, shown: string, problems: string[]) => {
    for (const language of UI_LANGUAGES) {
      await setLanguage(language);
      const copy = await open(url);
      await copy.locator(`html[lang=${language}]`).waitFor();
      await copy.locator(shown).waitFor();
      problems.push(...(await inEveryTheme(copy, `${what} ${language}`)));
      await copy.close();
    }
    // The steps after it find their way by English names.
    await setLanguage('en');
  };

  before(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      // No lang: the approval window then speaks the extension's language setting.
      response.end('<!doctype html><html><head><meta charset="utf-8"><title>A dapp</title></head><body></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The page's server also takes the merchant's events (any 2xx is a delivery).
    stack = await startStack({
      env: {
        KASSA_ALLOWED_ORIGINS: `${origin},${SHOP_ORIGIN}`,
        KASSA_EVENTS_URL: `${origin}/kassa/events`,
        KASSA_EVENTS_SECRET: eventsSecret(),
        // The on-ramp, with a fee, so that the proof's window shows every line it has.
        ...ONRAMP_ENV,
        KASSA_ONRAMP_FEE: '1.5%+0.30',
      },
      sandbox: { mintDelayMs: 0 },
    });
    extension = await launchExtension();
    // Settings while signing in (the code shown), then signed in as the admin.
    await configure(extension, stack.proxy.origin);
    const signing = await startSignIn(extension);
    await checkEveryLanguage('ui/popup.html?tab=settings', 'settings, signing in', '#user-code', signingProblems);
    await as(stack.proxy.origin, stack.admin)('/operator/device/approve', {
      body: { user_code: signing.userCode, approve: true },
    });
    await signing.page.locator('#operator-name').waitFor();
    await signing.page.close();
    await checkEveryLanguage(
      'ui/popup.html?tab=wallet',
      'wallet, no key',
      'kassa-wallet-view textarea',
      walletProblems,
    );
    await importVaultKey(extension, ACCOUNT, PASSWORD);

    ({ destinationId, transactionId, processingOrder, colleague, delayedPurchase } = await seedOperatorViews(
      stack,
      origin,
    ));

    // Locked, a site asks to connect: the window asks for the password (kept open to be checked).
    const wallet = await extension.openPage('ui/popup.html?tab=wallet');
    await wallet.locator('kassa-wallet-view button', { hasText: 'Lock now' }).click();
    await wallet.locator('.badge', { hasText: /^Locked$/ }).waitFor();
    await wallet.close();
    await checkEveryLanguage(
      'ui/popup.html?tab=wallet',
      'wallet, locked',
      'kassa-wallet-view input[name=password] >> nth=0',
      walletProblems,
    );
    const dapp = await extension.context.newPage();
    await dapp.addInitScript(discover);
    await dapp.goto(`${origin}/`);
    await dapp.waitForFunction(() => Boolean((window as { kassa?: unknown }).kassa));
    let opening = approvalWindow();
    const connected = call(dapp, 'eth_requestAccounts');
    let approval = await opening;
    await approval.locator('input[name=password]').waitFor();
    await checkEveryLanguage(approval.url(), 'approval (connect, locked)', 'input[name=password]', approvalProblems);

    // Checked before it is answered (answering closes the window and forgets the request).
    await approval.locator('input[name=password]').fill(PASSWORD);
    await approval.getByRole('button', { name: 'Connect' }).click();
    assert.deepEqual(await connected, { result: [ACCOUNT.address] });
    const [one, two] = stack.sandbox.chains;
    const prepared = await dapp.evaluate(
      async ({ proxy, body }) => {
        const response = await fetch(`${proxy}/api/bridge/prepare`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        return ((await response.json()) as { tx: string }).tx;
      },
      {
        proxy: stack.proxy.origin,
        body: {
          sourceAmount: '2.5',
          sourceToken: one!.tokens.eUSD.address,
          destinationToken: two!.tokens.eUSD.address,
          destinationChainId: two!.chainId,
        },
      },
    );
    const tx = Transaction.from(prepared);
    opening = approvalWindow();
    const sent = call(dapp, 'eth_sendTransaction', [
      { from: ACCOUNT.address, to: tx.to, data: tx.data, value: '0x0', gas: toQuantity(tx.gasLimit) },
    ]);
    approval = await opening;
    await approval.locator('[data-field=burn]').waitFor();
    await checkEveryLanguage(approval.url(), 'approval (transfer)', '[data-field=burn]', approvalProblems);
    await press(approval, 'Approve');
    assert.match(String((await sent).result), /^0x[0-9a-f]{64}$/);

    // A purchase's ownership proof, as the page's quote asks for it.
    const quote = await stack.browser('/api/onramp/quotes', {
      body: { wallet: ACCOUNT.address, chainId: 31338, symbol: 'eEUR', amount: '25' },
      headers: { Origin: origin },
    });
    assert.equal(quote.status, 201, quote.text);
    opening = approvalWindow();
    const signed = call(dapp, 'personal_sign', [hexlify(toUtf8Bytes(quote.body.message as string)), ACCOUNT.address]);
    approval = await opening;
    await approval.locator('[data-field=fee]').waitFor();
    await checkEveryLanguage(approval.url(), 'approval (purchase proof)', '[data-field=purchase]', approvalProblems);
    await press(approval, 'Approve');
    assert.match(String((await signed).result), /^0x[0-9a-f]{130}$/);
    await dapp.close();
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
    server?.close();
  });

  it('the wallet with no key yet and while locked, in every language and theme', () => {
    assert.deepEqual(walletProblems, []);
  });

  it('Settings while signing in (the code shown), in every language and theme', () => {
    assert.deepEqual(signingProblems, []);
  });

  it('the approval window (connect while locked, a transfer, a purchase proof), in every language and theme', () => {
    assert.deepEqual(approvalProblems, []);
  });

  for (const language of UI_LANGUAGES) {
    it(`every view in ${language}, light and dark`, async () => {
      await setLanguage(language);
      const problems: string[] = [];
      const check = async (page: Page, view: string, fit = false) =>
        problems.push(...(await inEveryTheme(page, `${view} ${language}`, fit)));
      const ready = async (page: Page) => {
        await page.locator(`html[lang=${language}]`).waitFor();
        return page;
      };

      // Settings, with the language setting.
      let page = await ready(await open('ui/popup.html?tab=settings'));
      await page.locator('kassa-settings-view select#language').waitFor();
      await check(page, 'settings');
      await page.close();

      // The wallet tab: balances on every chain, the transfer arrived.
      page = await ready(await open('ui/popup.html?tab=wallet'));
      await page.locator('#activity li[data-state="arrived"]').waitFor({ timeout: PATIENCE_MS });
      await page.locator('#balances tr').first().waitFor();
      await check(page, 'wallet');
      await page.close();

      // The same in the side panel, 360 px wide.
      page = await ready(await open('ui/sidepanel.html?tab=wallet', 360));
      await page.locator('#activity li[data-state="arrived"]').waitFor({ timeout: PATIENCE_MS });
      await check(page, 'side panel wallet');
      await page.close();

      // Orders: the new order's per-field messages, then the service's refusal of a delete.
      page = await ready(await open('ui/popup.html?tab=orders'));
      const row = page.locator(`tr[data-order="${processingOrder}"]`);
      await row.waitFor();
      await page.locator('kassa-orders-view details summary').click();
      const form = page.locator('kassa-orders-view form[novalidate]');
      await form.locator('select[name=chainId] option').first().waitFor({ state: 'attached' });
      await form.locator('[name=amount]').fill('-5');
      await form.locator('[name=mintWallet]').fill('not a wallet');
      await form.locator('[name=customerName]').fill(' ');
      await form.locator('button[type=submit]').click();
      await page.locator('#amount-problem').waitFor();
      await check(page, 'orders form');
      await row.locator('button').nth(1).click();
      await row.locator('button.danger').click();
      await page.locator('#list-error').waitFor();
      await check(page, 'orders refusal');
      await page.close();

      // Payments: the detail pane of one payment.
      page = await ready(await open('ui/sidepanel.html?tab=payments', 360));
      await page.locator(`tr[data-transaction="${transactionId}"] button`).click();
      await page.locator('kassa-payment-detail #transaction-id').waitFor();
      await check(page, 'payment detail');
      await page.close();

      // Events, and one event's attempts and payload.
      page = await ready(await open('ui/popup.html?tab=events'));
      await page.locator('kassa-events-view form').first().waitFor();
      await check(page, 'events');
      await page.locator('kassa-events-view tr[data-event] button').first().click();
      await page.locator('kassa-event-detail dl').waitFor();
      await page.locator('kassa-event-detail table').waitFor();
      await check(page, 'event detail');
      await page.close();

      // Event destinations: one open with its delivery log, the form that adds one open.
      page = await ready(await open('ui/sidepanel.html?tab=events', 360));
      await page.locator(`kassa-destinations tr[data-destination="${destinationId}"] button`).click();
      await page.locator('kassa-destination-detail tr[data-status=delivered]').first().waitFor();
      await page.locator('kassa-destinations details summary').click();
      await check(page, 'destinations', true);
      await page.close();

      // Merchant keys: a key with its roll and revoke, the form that makes one open.
      page = await ready(await open('ui/sidepanel.html?tab=keys', 360));
      await page.locator('kassa-merchant-keys-view tr[data-key] form').waitFor();
      await page.locator('kassa-merchant-keys-view details summary').click();
      await check(page, 'merchant keys', true);
      await page.close();

      // Purchases, and a delayed one's detail with its refund form, its note missing.
      page = await ready(await open('ui/sidepanel.html?tab=purchases', 360));
      await page.locator(`tr[data-purchase="${delayedPurchase}"] button`).click();
      await page.locator('kassa-purchase-detail #purchase-state').waitFor();
      await check(page, 'purchases');
      const detail = page.locator('kassa-purchase-detail');
      await detail.locator('.row button.secondary').last().click();
      await detail.locator('form button[type=submit]').click();
      await detail.locator('#note-problem').waitFor();
      await check(page, 'purchase refund form');
      await page.close();

      // Approvals: a request another admin asked, open, then its rejection's reason missing.
      page = await ready(await open('ui/sidepanel.html?tab=approvals', 360));
      await page.locator('kassa-approvals-view tr[data-approval] button').first().click();
      const card = page.locator('kassa-approval-card');
      await card.locator('dl').waitFor();
      await check(page, 'approvals', true);
      await card.locator('.row button.secondary').last().click();
      await card.locator('form button[type=submit]').click();
      await card.locator('#reason-problem').waitFor();
      await check(page, 'approval rejection');
      await page.close();

      // Team: a person open, with their tokens; the invitation form open.
      page = await ready(await open('ui/sidepanel.html?tab=team', 360));
      await page.locator(`kassa-team-view tr[data-operator="${colleague.operatorId}"] button`).click();
      await page.locator('kassa-team-member li[data-credential]').first().waitFor();
      await page.locator('kassa-team-view details summary').click();
      await check(page, 'team', true);
      await page.close();

      // Audit: one record open, its states before and after.
      page = await ready(await open('ui/sidepanel.html?tab=audit', 360));
      await page.locator('kassa-audit-view tr[data-seq] button').first().click();
      await page.locator('kassa-audit-record dl').waitFor();
      await check(page, 'audit', true);
      await page.close();
      await setLanguage('auto');
      assert.deepEqual(problems, []);
    });
  }
});

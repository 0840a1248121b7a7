/**
 * The built extension (dist/extension) loaded unpacked into Debian's Chromium, headless, in a
 * persistent profile: its service worker, its ID, its pages, and every request that the extension
 * and the pages of the context make (URL, headers, post data), to check what leaves the browser.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright';
import { PATIENCE_MS } from './patience.ts';
import { as, type TestOperator } from './operators.ts';

const root = join(import.meta.dirname, '..', '..');
export const EXTENSION_DIST = join(root, 'dist', 'extension');

/** Newest modification time under a folder. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
}

/**
 * Builds the extension when dist/extension is missing or older than its sources: test/run.ts builds
 * it once before the extension suites (and says so with KASSA_EXTENSION_PREBUILT, so that suites
 * running side by side never rebuild it under each other); this covers running one file by hand.
 */
export function ensureExtensionBuilt(): void {
  const manifest = join(EXTENSION_DIST, 'manifest.json');
  if (process.env.KASSA_EXTENSION_PREBUILT === '1' && existsSync(manifest)) return;
  const sources = Math.max(
    ...['extension', 'lib', 'schemas', join('widget', 'shared')].map((dir) => newest(join(root, dir))),
  );
  if (existsSync(manifest) && statSync(manifest).mtimeMs >= sources) return;
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'extension/vite.config.ts', '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('building the extension failed');
}

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData: string;
  /** The page's URL, or `service worker`. */
  from: string;
}

export interface LoadedExtension {
  context: BrowserContext;
  worker: Worker;
  id: string;
  userDataDir: string;
  requests: RecordedRequest[];
  /** Opens one of the extension's pages (`ui/popup.html`, `ui/sidepanel.html?tab=wallet`…). */
  openPage(path: string): Promise<Page>;
  /** chrome.storage.local as the service worker sees it. */
  storage(area?: 'local' | 'session'): Promise<Record<string, unknown>>;
  /** Closes the browser (the profile stays, for `launchExtension({ userDataDir })`). */
  close(): Promise<void>;
  /** Closes the browser and deletes the profile. */
  dispose(): Promise<void>;
}

/**
 * `dir`: another unpacked copy than dist/extension (the store package, unzipped). `args`: more
 * Chromium switches (`--host-resolver-rules=MAP *.test 127.0.0.1`, for sites of several names on loopback).
 */
export async function launchExtension(
  options: { userDataDir?: string; dir?: string; args?: string[] } = {},
): Promise<LoadedExtension> {
  const dir = options.dir ?? EXTENSION_DIST;
  if (!options.dir) ensureExtensionBuilt();
  const userDataDir = options.userDataDir ?? mkdtempSync(join(tmpdir(), 'kassa-extension-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.KASSA_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
      ...(options.args ?? []),
    ],
  });
  context.setDefaultTimeout(PATIENCE_MS);
  // Errors of the extension's pages and its service worker go to the test log, for diagnosing failures.
  context.on('console', (message) => {
    if (message.type() === 'error' && message.location().url.startsWith('chrome-extension://'))
      process.stderr.write(`[extension console] ${message.location().url}: ${message.text()}\n`);
  });
  context.on('weberror', (error) => process.stderr.write(`[extension error] ${error.error().message}\n`));
  const requests: RecordedRequest[] = [];
  context.on('request', (request) => {
    const frame = (() => {
      try {
        return request.frame().url();
      } catch {
        return 'service worker';
      }
    })();
    requests.push({
      url: request.url(),
      method: request.method(),
      headers: request.headers(),
      postData: request.postData() ?? '',
      from: frame,
    });
  });
  const worker =
    context.serviceWorkers().find((candidate) => candidate.url().startsWith('chrome-extension://')) ??
    (await context.waitForEvent('serviceworker', { timeout: PATIENCE_MS }));
  const id = new URL(worker.url()).host;
  const currentWorker = () =>
    context.serviceWorkers().find((candidate) => candidate.url().startsWith(`chrome-extension://${id}/`)) ?? worker;
  return {
    context,
    get worker() {
      return currentWorker();
    },
    id,
    userDataDir,
    requests,
    async openPage(path: string) {
      const page = await context.newPage();
      await page.goto(`chrome-extension://${id}/${path}`);
      return page;
    },
    storage: (area = 'local') => currentWorker().evaluate((name) => chrome.storage[name].get(null), area),
    close: () => context.close(),
    async dispose() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Switches the extension off or on as its user does, from chrome://extensions (whose page may manage extensions). */
export async function setExtensionEnabled(extension: LoadedExtension, enabled: boolean): Promise<void> {
  const page = await extension.context.newPage();
  try {
    await page.goto('chrome://extensions/');
    await page.evaluate(([id, enabled]) => chrome.management.setEnabled(id, enabled), [extension.id, enabled] as const);
  } finally {
    await page.close();
  }
}

/** Fills in Settings (the proxy URL) in an extension page and waits for "Saved.". */
export async function configure(extension: LoadedExtension, proxyUrl: string): Promise<void> {
  const page = await extension.openPage('ui/popup.html?tab=settings');
  await page.getByLabel('Proxy URL').fill(proxyUrl);
  await page.getByRole('button', { name: 'Save' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: 'Saved.' })
    .waitFor()
    .catch(async (error: Error) => {
      const shown = await page
        .getByRole('status')
        .allTextContents()
        .catch(() => []);
      throw new Error(`settings not saved; the page says: ${JSON.stringify(shown)}`, { cause: error });
    });
  await page.close();
}

/**
 * Starts the device sign-in in Settings (_Sign in_, after _Sign out_ when someone is signed in) and
 * returns the page, showing its code, and the code as the extension shows it.
 */
export async function startSignIn(extension: LoadedExtension): Promise<{ page: Page; userCode: string }> {
  const page = await extension.openPage('ui/popup.html?tab=settings');
  const signInButton = page.getByRole('button', { name: 'Sign in' });
  const signOutButton = page.getByRole('button', { name: 'Sign out' });
  await signInButton.or(signOutButton).waitFor();
  // Someone else is signed in on this profile: they sign out first.
  if (await signOutButton.isVisible()) await signOutButton.click();
  await signInButton.click();
  const code = page.locator('#user-code');
  await code.waitFor();
  return { page, userCode: ((await code.textContent()) ?? '').trim() };
}

/**
 * Signs the extension in to `proxyUrl` as `person` by device (RFC 8628), as a person does: the proxy
 * URL saved, _Sign in_, and the code the extension shows approved with the person's own credential
 * (`POST /operator/device/approve`, what the proxy's approval page sends); then Settings shows who is
 * signed in. The extension's next poll (within the proxy's interval, 5 s) gets the device token.
 */
export async function signIn(extension: LoadedExtension, proxyUrl: string, person: TestOperator): Promise<void> {
  await configure(extension, proxyUrl);
  const { page, userCode } = await startSignIn(extension);
  const approved = await as(proxyUrl, person)('/operator/device/approve', {
    body: { user_code: userCode, approve: true },
  });
  if (approved.status !== 200) throw new Error(`device approval: ${approved.status} ${approved.text}`);
  await page.locator('#operator-name').filter({ hasText: person.name }).waitFor();
  await page.close();
}

/** The device token the extension's worker keeps, for tests that check it goes nowhere else. */
export async function deviceTokenOf(extension: LoadedExtension): Promise<string> {
  const session = (await extension.storage())['kassa.operatorSession'] as { token?: string } | undefined;
  if (!session?.token) throw new Error('the extension is not signed in');
  return session.token;
}

/** Imports a funded key into the vault through the Wallet tab and waits until its address shows. */
export async function importVaultKey(
  extension: LoadedExtension,
  account: { privateKey: string; address: string },
  password: string,
): Promise<void> {
  const wallet = await extension.openPage('ui/popup.html?tab=wallet');
  const importer = wallet.getByRole('form', { name: 'Import a key' });
  await importer.getByLabel('Private key (64 hex digits)').fill(account.privateKey);
  await importer.getByLabel('Password', { exact: true }).fill(password);
  await importer.getByLabel('Repeat the password').fill(password);
  await importer.getByRole('button', { name: 'Import key' }).click();
  // scrypt at full strength takes a while on a slow machine.
  await wallet.locator('#address').filter({ hasText: account.address }).waitFor({ timeout: PATIENCE_MS });
  await wallet.close();
}

/** Every place a secret shows up in the recorded requests (URL, headers, body), any case, with or without 0x. */
export function leaks(requests: RecordedRequest[], secrets: string[]): string[] {
  const needles = secrets
    .filter(Boolean)
    .flatMap((secret) => [secret.toLowerCase(), secret.toLowerCase().replace(/^0x/, '')]);
  const found: string[] = [];
  for (const request of requests) {
    const haystack = [request.url, JSON.stringify(request.headers), request.postData].join('\n').toLowerCase();
    for (const needle of needles)
      if (needle.length >= 8 && haystack.includes(needle))
        found.push(`${request.method} ${request.url} (${request.from}) carries a secret`);
  }
  return found;
}

/** The next approval window Kassa opens in the context. */
export function approvalWindow(extension: LoadedExtension): Promise<Page> {
  return extension.context.waitForEvent('page', {
    predicate: (candidate) => candidate.url().includes('/ui/approval.html'),
    timeout: PATIENCE_MS,
  });
}

export type ProviderAnswer = { result?: unknown; error?: { code: number; message: string } };

/** A page asks the provider Kassa announced (EIP-6963), kept by the page as `window.kassa`. */
export function providerCall(page: Page, method: string, params?: unknown): Promise<ProviderAnswer> {
  return page.evaluate(
    async ([method, params]) => {
      const provider = (window as unknown as { kassa: { request(args: unknown): Promise<unknown> } }).kassa;
      try {
        return { result: await provider.request(params === undefined ? { method } : { method, params }) };
      } catch (error) {
        const { code, message } = error as { code: number; message: string };
        return { error: { code, message } };
      }
    },
    [method, params] as const,
  );
}

/** Clicks a button of the approval window, which may close as the click lands (its answer closes it). */
export async function press(approval: Page, name: string): Promise<void> {
  try {
    await approval.getByRole('button', { name, exact: true }).click();
  } catch (error) {
    if (!approval.isClosed()) throw error;
  }
}

/**
 * Runs in a page before its scripts (`page.addInitScript(discoverKassa)`): records EIP-6963
 * announcements (`window.announced`), keeps Kassa's provider as `window.kassa` and the events it
 * fires (`window.providerEvents`).
 */
export function discoverKassa(): void {
  const found: Array<{ info: { uuid: string; name: string; icon: string; rdns: string }; provider: unknown }> = [];
  const events: Array<[string, unknown]> = [];
  Object.assign(window, { announced: found, providerEvents: events });
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = (event as CustomEvent).detail as (typeof found)[number];
    found.push(detail);
    if (detail.info.rdns === 'dev.kassa.wallet' && !(window as { kassa?: unknown }).kassa) {
      const provider = detail.provider as { on(event: string, listener: (value: unknown) => void): void };
      for (const name of ['connect', 'chainChanged', 'accountsChanged'])
        provider.on(name, (value) => events.push([name, value]));
      Object.assign(window, { kassa: provider });
    }
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

/** A page of `url` that found Kassa through EIP-6963 (`window.kassa`, see discoverKassa). */
export async function openDapp(extension: LoadedExtension, url: string): Promise<Page> {
  const page = await extension.context.newPage();
  await page.addInitScript(discoverKassa);
  await page.goto(url);
  await page.waitForFunction(() => Boolean((window as { kassa?: unknown }).kassa));
  return page;
}

/** The page asks to connect and the user approves in the approval window. */
export async function connectDapp(extension: LoadedExtension, page: Page): Promise<void> {
  const opening = approvalWindow(extension);
  const asked = providerCall(page, 'eth_requestAccounts');
  await press(await opening, 'Connect');
  const answer = await asked;
  if (!Array.isArray(answer.result)) throw new Error(`not connected: ${JSON.stringify(answer)}`);
}

/**
 * The refusal of a request that must be refused before any approval window opens. A window that
 * opens instead fails the test (after closing it, which answers the request).
 */
export async function refusedWithoutWindow(
  extension: LoadedExtension,
  page: Page,
  method: string,
  params?: unknown,
): Promise<{ code: number; message: string }> {
  const opened = approvalWindow(extension).catch(() => undefined);
  const answered = providerCall(page, method, params);
  const first = await Promise.race([answered.then(() => 'answer' as const), opened.then(() => 'window' as const)]);
  if (first === 'window') {
    const approval = await opened;
    const shown = await approval!
      .locator('kassa-approval')
      .innerText()
      .catch(() => '');
    await approval!.close();
    await answered;
    throw new Error(`${method} opened an approval window instead of being refused: ${shown.replace(/\s+/g, ' ')}`);
  }
  const answer = await answered;
  if (!answer.error) throw new Error(`${method} was answered ${JSON.stringify(answer.result)} instead of refused`);
  return answer.error;
}

/**
 * Every element whose right edge is beyond the page's width, through every shadow root: what would
 * scroll sideways. A script's text, since the test runner's helpers do not exist in the page.
 */
const OVERFLOWING = `(() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width)
    found.push('document scrolls: ' + document.documentElement.scrollWidth + ' > ' + width);
  const roots = [document];
  while (roots.length) {
    for (const element of roots.pop().querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 0.5)
        found.push(element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + ' ends at ' + box.right);
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  return found;
})()`;

/** What in `page` is wider than it (see OVERFLOWING). */
export const overflowing = (page: Page): Promise<string[]> => page.evaluate(OVERFLOWING);

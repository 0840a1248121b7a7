/**
 * The wallet panel's journeys in Chromium: a page of the demo shop with test wallets injected
 * (wallet-provider.ts in the page, wallet-signer.ts in this process), every request the page makes
 * recorded, and helpers to read what the panel shows.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright';
import type { Json } from '../../support/http.ts';
import { watchProblems } from '../../support/browser.ts';
import { installTestWallets, type WalletRequest } from '../../support/wallet/wallet-provider.ts';
import type { TestWallet, TestWalletHub } from '../../support/wallet/wallet-signer.ts';
import { PATIENCE_MS } from '../../support/patience.ts';

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData: string | null;
}

/** anvil's default accounts 0 and 1 and their well-known phrase: the key material no request may carry. */
export const ANVIL_KEYS = [
  'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
];
const PHRASE = /\b(?:[a-z]{3,8}\s+){11,23}[a-z]{3,8}\b/i;
const ANVIL_PHRASE = /test\s+test\s+test/i;

/** Where a request carries key material (a private key, in any case and with or without 0x; a 12–24 word phrase), or undefined. */
export function keyMaterialIn(request: RecordedRequest, keys: readonly string[] = ANVIL_KEYS): string | undefined {
  let url = request.url;
  try {
    url = decodeURIComponent(request.url);
  } catch {
    // keep it as it is
  }
  const text = [url, request.postData ?? '', JSON.stringify(request.headers)].join('\n');
  const lower = text.toLowerCase();
  const key = keys.find((candidate) => lower.includes(candidate.toLowerCase()));
  if (key) return `a private key in ${request.method} ${request.url}`;
  if (PHRASE.test(text) || ANVIL_PHRASE.test(text)) return `a recovery phrase in ${request.method} ${request.url}`;
  return undefined;
}

export interface WalletPage {
  page: Page;
  context: BrowserContext;
  problems: string[];
  /** The `kassa-bridge-*` events (or those asked for) the page heard, in order (since it last loaded). */
  events: () => Promise<Array<{ type: string; detail: Json }>>;
}

const BINDING = 'kassaTestWallet';

const BRIDGE_EVENTS = [
  'kassa-bridge-submitted',
  'kassa-bridge-mined',
  'kassa-bridge-delayed',
  'kassa-bridge-arrived',
  'kassa-bridge-refunded',
  'kassa-bridge-error',
];

/** Notes every event of these types in `window.kassaBridgeEvents`. */
function recordEvents(types: string[]): void {
  const seen: Array<{ type: string; detail: unknown }> = ((
    window as unknown as { kassaBridgeEvents: unknown[] }
  ).kassaBridgeEvents = []);
  for (const type of types)
    document.addEventListener(type, (event) => seen.push({ type, detail: (event as CustomEvent).detail }));
}

/**
 * A function of this file as a page script. tsx compiles it with esbuild's keepNames, which wraps
 * inner functions in `__name(...)`, a helper the page does not have: it is given a no-op one.
 */
function pageScript<T>(fn: (arg: T) => void, arg: T): string {
  return `(() => { const __name = (target) => target; (${fn.toString()})(${JSON.stringify(arg) ?? ''}); })();`;
}

/**
 * A fresh browser context (of a `screen`'s size, if given) on `url`, with `wallets` announced (EIP-6963),
 * `windowEthereum` also as `window.ethereum`, each request of the context pushed to `requests`, and the page's `events`
 * (the wallet panel's by default) recorded.
 */
export async function openWalletPage(
  browser: Browser,
  url: string,
  hub: TestWalletHub,
  wallets: TestWallet[],
  requests: RecordedRequest[],
  {
    events = BRIDGE_EVENTS,
    screen,
    ...options
  }: { windowEthereum?: string; announce?: boolean; events?: string[]; screen?: BrowserContextOptions } = {},
): Promise<WalletPage> {
  const context = await browser.newContext(screen);
  context.on('request', (request) =>
    requests.push({
      url: request.url(),
      method: request.method(),
      headers: request.headers(),
      postData: request.postData(),
    }),
  );
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.exposeBinding(BINDING, (_source, request: WalletRequest) => hub.handle(request));
  await page.addInitScript({
    content: pageScript(installTestWallets, {
      binding: BINDING,
      wallets: wallets.map((wallet) => wallet.announcement),
      ...options,
    }),
  });
  await page.addInitScript({ content: pageScript(recordEvents, events) });
  await page.goto(url);
  return {
    page,
    context,
    problems,
    events: () =>
      page.evaluate(
        () => (window as unknown as { kassaBridgeEvents: Array<{ type: string; detail: Json }> }).kassaBridgeEvents,
      ),
  };
}

/** Waits until the panel shows this phase. */
export async function bridgePhase(page: Page, phase: string): Promise<void> {
  await page.locator(`kassa-bridge[phase="${phase}"]`).waitFor({ timeout: PATIENCE_MS });
}

/** The text of a part of the panel, whitespace collapsed. */
export async function bridgeText(page: Page, selector: string): Promise<string> {
  return ((await page.locator(`kassa-bridge ${selector}`).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** A preview field (`burn`, `mint`, `recipient`, `contract`, `method`, `network`, `fee`). */
export const previewField = (page: Page, field: string) => bridgeText(page, `[data-field="${field}"]`);

/** Emits a wallet event in the page, as the wallet would (the user changed account or network in it). */
export async function emitWalletEvent(page: Page, wallet: string, [event, data]: [string, unknown]): Promise<void> {
  await page.evaluate(
    ([id, name, value]) =>
      (
        window as unknown as { kassaTestWallets: Record<string, { emit(event: string, data: unknown): void }> }
      ).kassaTestWallets[id]!.emit(name, value),
    [wallet, event, data] as const,
  );
}

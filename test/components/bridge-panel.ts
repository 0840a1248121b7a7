/// <reference types="mocha" />
/**
 * The browser side of the wallet panel's component tests (test/components/bridge-*.test.ts): test
 * wallets installed in the page whose requests go to the test process (`bridge:*` server commands,
 * wallet-commands.ts), so the keys stay there; mounting the panel on its own stack; and waiting for
 * what the user sees. The panel runs against the real proxy, emulator and anvil chains.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import type { ChainEntry } from '../../schemas/reforge.ts';
import type { BridgePhase, KassaBridge } from '../../widget/kassa-bridge.ts';
import '../../widget/kassa-bridge.ts';
import { part, phase as elementPhase, stackInfo, text, until } from './support.ts';
import type {
  ChainActionPayload,
  InstalledWalletInfo,
  Tampering,
  TamperingPayload,
  WalletActionPayload,
  WalletRequestPayload,
  WalletSetup,
  WalletsPayload,
} from '../support/wallet/wallet-commands.ts';
import {
  installTestWallets,
  walletIconUri,
  type InstalledWallet,
  type WalletAnswer,
  type WalletRequest,
} from '../support/wallet/wallet-provider.ts';

export { part, text, until };

/** The panel's tests run on a stack of their own: its chains are theirs to mine, pause and fund. */
export const BRIDGE_STACK = 'bridge';
export const ONE = 31337;
export const TWO = 31338;
const BINDING = 'kassaBridgeTestWallet';

const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  // The history outlives the page: each test starts with none (a transfer left under way would be resumed).
  await new Promise((resolve) => {
    const request = indexedDB.deleteDatabase('kassa-bridge');
    request.onsuccess = request.onerror = request.onblocked = resolve;
  });
});

type Registry = Record<string, InstalledWallet>;
const registry = () => ((window as unknown as { kassaTestWallets?: Registry }).kassaTestWallets ??= {});

/** Options of a test wallet; name, rdns, icon and starting chain have defaults. */
export type WalletOptions = Partial<WalletSetup> & { id: string; account: number };

/**
 * Installs test wallets in this page (announced with EIP-6963, unless `announce` is false), their
 * signing half in the test process, on the panel's stack (or `stack`'s chains); removed after the test.
 */
export async function installWallets(
  wallets: WalletOptions[],
  { stack = BRIDGE_STACK, ...options }: { windowEthereum?: string; announce?: boolean; stack?: string } = {},
): Promise<InstalledWalletInfo[]> {
  const setups: WalletSetup[] = wallets.map((wallet) => ({
    name: `${wallet.id[0]!.toUpperCase()}${wallet.id.slice(1)} Wallet`,
    rdns: `test.kassa.${wallet.id}`,
    icon: walletIconUri('#1d4ed8', wallet.id[0]!.toUpperCase()),
    chainId: ONE,
    ...wallet,
  }));
  const infos = await executeServerCommand<InstalledWalletInfo[], WalletsPayload>('bridge:wallets', {
    stack,
    wallets: setups,
  });
  (window as unknown as Record<string, unknown>)[BINDING] = (request: WalletRequest) =>
    executeServerCommand<WalletAnswer, WalletRequestPayload>('bridge:wallet', { ...request, stack });
  installTestWallets({ binding: BINDING, wallets: infos, ...options });
  cleanups.push(() => infos.forEach((info) => registry()[info.id]?.remove()));
  return infos;
}

/** Something the test wallet's user does, or what the test wallet recorded. */
export const walletAction = <T = unknown>(
  id: string,
  action: WalletActionPayload['action'],
  value?: number,
  stack = BRIDGE_STACK,
) => executeServerCommand<T, WalletActionPayload>('bridge:wallet-action', { stack, id, action, value });

/**
 * The user does something in the wallet (changes account, network), or its chains go down or come
 * back (`offline`, `online`): the wallet emits its event in the page.
 */
export async function userInWallet(
  id: string,
  action: 'use-account' | 'move-to' | 'offline' | 'online',
  value?: number,
  stack = BRIDGE_STACK,
): Promise<void> {
  const [event, data] = await walletAction<[string, unknown]>(id, action, value, stack);
  registry()[id]!.emit(event, data);
}

/** The methods a test wallet was called with, in order. */
export const walletCalls = async (id: string) =>
  (await walletAction<Array<{ method: string; params: unknown }>>(id, 'calls')).map((call) => call.method);

export const chainAction = <T = unknown>(payload: Omit<ChainActionPayload, 'stack'>) =>
  executeServerCommand<T, ChainActionPayload>('bridge:chain', { stack: BRIDGE_STACK, ...payload });

/** An account's balance of a token on a chain, read in the test process (base units). */
export const balanceOf = async (chainId: number, token: string, account: string) =>
  BigInt(await chainAction<string>({ chainId, action: 'balance', token, account }));

/** A proxy in front of the stack's that alters each prepared transaction. */
export const tamperingProxy = (tampering: Tampering) =>
  executeServerCommand<string, TamperingPayload>('bridge:tampering-proxy', { stack: BRIDGE_STACK, tampering });

/** The stack's proxy and its chain listing. */
export async function bridgeStack(): Promise<{ proxy: string; chains: ChainEntry[] }> {
  const { proxy } = await stackInfo(BRIDGE_STACK);
  const chains = (await (await fetch(`${proxy}/api/bridge/chains?network=test`)).json()) as ChainEntry[];
  return { proxy, chains };
}

/** A <kassa-bridge> on the panel's stack (or `proxy`), with these attributes, removed after the test. */
export async function mountPanel(
  attributes: Record<string, string> = {},
  parent: ParentNode = document.body,
): Promise<KassaBridge> {
  const proxy = attributes.proxy ?? (await stackInfo(BRIDGE_STACK)).proxy;
  const element = document.createElement('kassa-bridge');
  for (const [name, value] of Object.entries({ ...attributes, proxy })) element.setAttribute(name, value);
  parent.append(element);
  cleanups.push(() => element.remove());
  return element;
}

/** Waits until the panel shows this phase (in its language). */
export const phase = (element: KassaBridge, expected: BridgePhase) => elementPhase(element, expected);

/** Waits until the status line reads `expected` (a string, or a pattern). */
export const status = (element: KassaBridge, expected: string | RegExp) =>
  until(
    () =>
      (typeof expected === 'string' ? text(element, 'status') === expected : expected.test(text(element, 'status'))) &&
      element,
    () => `status ${expected} (now "${text(element, 'status')}", phase ${element.phase})`,
  );

/** An element inside the panel's shadow root. */
export const inside = <E extends Element = HTMLElement>(element: KassaBridge, selector: string) =>
  element.shadowRoot!.querySelector<E>(selector);

/** A button's name as assistive technology reads it: its aria-label, else its text without aria-hidden parts. */
export function accessibleName(button: HTMLElement): string {
  const label = button.getAttribute('aria-label');
  if (label) return label;
  const copy = button.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
  return copy.textContent.replace(/\s+/g, ' ').trim();
}

/** The panel's button with this name. */
export function button(element: KassaBridge, label: string): HTMLButtonElement {
  const buttons = [...element.shadowRoot!.querySelectorAll('button')];
  const found = buttons.find((candidate) => accessibleName(candidate) === label);
  if (!found)
    throw new Error(
      `no button "${label}" (phase ${element.phase}; buttons: ${buttons.map(accessibleName).join(', ')})`,
    );
  return found;
}

/** Whether keyboard focus is on this element of the panel (a boolean: chai cannot print DOM nodes in its failures). */
export const focused = (element: KassaBridge, target: Element | null | undefined) =>
  !!target && element.shadowRoot!.activeElement === target;

/** Types into the amount field as a user does. */
export async function typeAmount(element: KassaBridge, value: string): Promise<void> {
  const input = inside<HTMLInputElement>(element, '#amount')!;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new Event('blur'));
  await element.updateComplete;
}

/** Chooses an option of one of the panel's selects (`source`, `destination`, `token`). */
export async function choose(
  element: KassaBridge,
  select: 'source' | 'destination' | 'token',
  value: string | number,
): Promise<void> {
  const field = inside<HTMLSelectElement>(element, `#${select}`)!;
  field.value = String(value);
  field.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  await element.updateComplete;
}

/** The panel connected to `wallet` (clicked in the list), with its balance read. */
export async function connected(element: KassaBridge, wallet: InstalledWalletInfo): Promise<KassaBridge> {
  await phase(element, 'connect');
  button(element, wallet.name).click();
  await phase(element, 'ready');
  await until(() => /^Balance: /.test(text(element, 'balance')), 'the balance');
  return element;
}

/** From a connected panel to the preview of a transfer of `amount` of the selected token. */
export async function reviewed(element: KassaBridge, amount: string): Promise<KassaBridge> {
  await typeAmount(element, amount);
  button(element, 'Review transfer').click();
  return phase(element, 'review');
}

/** Turns anvil's automine off on a chain for the duration of `run` (transactions wait in the pool). */
export async function withoutAutomine<T>(chainId: number, run: () => Promise<T>): Promise<T> {
  await chainAction({ chainId, action: 'automine', on: false });
  try {
    return await run();
  } finally {
    await chainAction({ chainId, action: 'automine', on: true });
  }
}

/**
 * Runs `run` with the page's chain reads watched: `sawPending(hash)` tells whether the panel has read
 * this transaction from the chain, not yet mined (what it needs to know a replacement from a drop).
 */
export async function watchingPendingReads<T>(run: (sawPending: (hash: string) => boolean) => Promise<T>): Promise<T> {
  const seen = new Set<string>();
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    const asked =
      typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: string[] }) : {};
    if (asked.method === 'eth_getTransactionByHash') {
      const answer = (await response.clone().json()) as { result?: { blockNumber: string | null } | null };
      if (answer.result && answer.result.blockNumber === null) seen.add(asked.params![0]!.toLowerCase());
    }
    return response;
  };
  try {
    return await run((hash) => seen.has(hash.toLowerCase()));
  } finally {
    window.fetch = original;
  }
}

interface AxeResults {
  violations: Array<{ id: string; help: string; nodes: Array<{ failureSummary: string }> }>;
}
type Axe = { run(context: Element, options?: object): Promise<AxeResults> };

/** What axe-core finds wrong in `element`, one line a rule (loaded into the page on first use). */
export async function axeViolations(element: Element): Promise<string[]> {
  const global = window as Window & { axe?: Axe };
  if (!global.axe)
    await new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = '/node_modules/axe-core/axe.min.js';
      script.onload = resolve;
      script.onerror = reject;
      document.head.append(script);
    });
  const { violations } = await global.axe!.run(element, { resultTypes: ['violations'] });
  return violations.map(
    ({ id, help, nodes }) => `${id} (${help}): ${nodes.map((node) => node.failureSummary).join('; ')}`,
  );
}

/// <reference types="mocha" />
/**
 * The browser side of the on-ramp's component tests (test/components/onramp-*.test.ts): the
 * element on a stack of its own (the proxy's on-ramp on, EUR → eEUR and GBP → eGBR, 1 to 500 a
 * purchase, 1,000 a wallet a day; the emulator's issuer minting at once), test wallets whose keys
 * stay in the test process, and waiting for what the customer sees.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import type { OnrampConfig, OperatorPurchase } from '../../schemas/onramp.ts';
import type { KassaCheckout } from '../../widget/kassa-checkout.ts';
import type { KassaOnramp, OnrampPhase } from '../../widget/kassa-onramp.ts';
import '../../widget/kassa-onramp.ts';
import type { ChainActionPayload, InstalledWalletInfo, TamperingPayload } from '../support/wallet/wallet-commands.ts';
import { accessibleName, installWallets, userInWallet, walletAction, type WalletOptions } from './bridge-panel.ts';
import type { OnrampPurchasePayload, OnrampWalletPayload, StackPayload } from './stack-commands.ts';
import { bank, part, phase as elementPhase, stayOnPage, text, until, type StackInfo } from './support.ts';

export { part, text, until };

export const ONRAMP_STACK = 'onramp';
/** A stack of its own whose purchases must be paid within 2 seconds (then they fail). */
export const SHORT_WINDOW_STACK = 'onramp-short-window';
export const TWO = 31338;

/** An on-ramp stack (started with its settings on first use): the proxy's origin and its offer. */
export async function onrampStack(stack = ONRAMP_STACK): Promise<{ proxy: string; config: OnrampConfig }> {
  const { proxy } = await executeServerCommand<StackInfo, StackPayload>('kassa:stack', {
    stack,
    onramp: true,
    ...(stack === SHORT_WINDOW_STACK ? { paymentWindowSeconds: 2 } : {}),
  });
  const config = (await (await fetch(`${proxy}/api/onramp/config`)).json()) as OnrampConfig;
  return { proxy, config };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  // The purchase's link stays in the test page's address otherwise.
  history.replaceState(null, '', location.pathname);
});

/** Test wallets on an on-ramp stack (anvil account `account` each); removed after the test. */
export async function onrampWallets(
  wallets: WalletOptions[],
  { stack = ONRAMP_STACK, ...options }: { windowEthereum?: string; announce?: boolean; stack?: string } = {},
): Promise<InstalledWalletInfo[]> {
  await onrampStack(stack);
  return installWallets(wallets, { ...options, stack });
}

/** What the test wallet recorded: the methods it was called with, or the messages it signed; or lets a held signature go. */
export const walletRecord = <T>(id: string, action: 'calls' | 'signed' | 'release') =>
  walletAction<T>(id, action, undefined, ONRAMP_STACK);

/** The customer does something in the wallet (another account, another network), or its chains go down or come back. */
export const customerInWallet = (
  id: string,
  action: 'use-account' | 'move-to' | 'offline' | 'online',
  value?: number,
) => userInWallet(id, action, value, ONRAMP_STACK);

/** A <kassa-onramp> on an on-ramp stack (or `proxy`), with these attributes, removed after the test. */
export async function mountOnramp(
  attributes: Record<string, string> = {},
  parent: ParentNode = document.body,
  stack = ONRAMP_STACK,
): Promise<KassaOnramp> {
  const proxy = attributes.proxy ?? (await onrampStack(stack)).proxy;
  const element = document.createElement('kassa-onramp');
  for (const [name, value] of Object.entries({ ...attributes, proxy })) element.setAttribute(name, value);
  parent.append(element);
  cleanups.push(() => element.remove());
  return element;
}

/** Waits until the element shows this phase (in its language). */
export const phase = (element: KassaOnramp, expected: OnrampPhase) => elementPhase(element, expected);

/** Waits until the status line reads `expected` (a string, or a pattern). */
export const status = (element: KassaOnramp, expected: string | RegExp) =>
  until(
    () =>
      (typeof expected === 'string' ? text(element, 'status') === expected : expected.test(text(element, 'status'))) &&
      element,
    () => `status ${expected} (now "${text(element, 'status')}", phase ${element.phase})`,
  );

/** An element inside the on-ramp's shadow root. */
export const inside = <E extends Element = HTMLElement>(element: KassaOnramp, selector: string) =>
  element.shadowRoot!.querySelector<E>(selector);

/** The on-ramp's button with this name. */
export function button(element: KassaOnramp, label: string): HTMLButtonElement {
  const buttons = [...element.shadowRoot!.querySelectorAll('button')];
  const found = buttons.find((candidate) => accessibleName(candidate) === label);
  if (!found)
    throw new Error(
      `no button "${label}" (phase ${element.phase}; buttons: ${buttons.map(accessibleName).join(', ')})`,
    );
  return found;
}

/** Types the tokens to receive, as a customer does. */
export async function typeAmount(element: KassaOnramp, value: string): Promise<void> {
  const input = inside<HTMLInputElement>(element, '#amount')!;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new Event('blur'));
  await element.updateComplete;
}

/** Chooses the coin or the network. */
export async function choose(element: KassaOnramp, select: 'coin' | 'chain', value: string | number): Promise<void> {
  const field = inside<HTMLSelectElement>(element, `#${select}`)!;
  field.value = String(value);
  field.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  await element.updateComplete;
}

/** The element connected to `wallet` (clicked in the list), with its balance read. */
export async function connected(element: KassaOnramp, wallet: InstalledWalletInfo): Promise<KassaOnramp> {
  await phase(element, 'connect');
  button(element, wallet.name).click();
  await phase(element, 'ready');
  // In any language: the balance line ends with the amount and the coin once it is read.
  await until(
    () => /\d e(EUR|GBR)$/.test(text(element, 'balance')),
    () => `the balance (${text(element, 'balance')})`,
  );
  return element;
}

/** From a connected element: eEUR on Kassa Local Two, `amount` of them, bought (signed) up to the payment. */
export async function bought(element: KassaOnramp, amount: string): Promise<KassaOnramp> {
  await choose(element, 'chain', TWO);
  await typeAmount(element, amount);
  button(element, `Buy ${amount} eEUR`).click();
  return phase(element, 'paying');
}

/** The embedded checkout of the purchase shown. */
export const embeddedCheckout = (element: KassaOnramp) =>
  until(() => inside<KassaCheckout>(element, 'kassa-checkout'), 'the embedded checkout');

/** Pays the purchase shown at the sandbox bank (without leaving the test page): "Pay by bank", then authorised. */
export async function payAtBank(element: KassaOnramp): Promise<void> {
  const checkout = await embeddedCheckout(element);
  await until(() => checkout.phase === 'ready' && checkout, 'the embedded checkout ready');
  const created = stayOnPage(element);
  const pay = [...checkout.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].find(
    (candidate) => accessibleName(candidate) === 'Pay by bank',
  )!;
  pay.click();
  const { flowUrl } = await created;
  await bank(flowUrl, 'authorise');
}

/** A purchase made straight through the proxy for anvil's account `account` (another page of the same wallet). */
export const purchaseElsewhere = (account: number, body?: Record<string, unknown>) =>
  executeServerCommand<{ status: number; body: Record<string, unknown> }, OnrampPurchasePayload>(
    'kassa:onramp-purchase',
    { stack: ONRAMP_STACK, onramp: true, account, body },
  );

/**
 * A proxy in front of the on-ramp's that makes each quote's message ask for ten times the tokens, or
 * loses the answer to the first purchase made through it.
 */
export async function tamperedProxy(
  tampering: 'quote-message' | 'lose-purchase-answer' = 'quote-message',
): Promise<string> {
  await onrampStack();
  return executeServerCommand<string, TamperingPayload>('bridge:tampering-proxy', { stack: ONRAMP_STACK, tampering });
}

/** A wallet's purchases, as the proxy's operator sees them (newest first). */
export const purchasesOf = (wallet: string) =>
  executeServerCommand<OperatorPurchase[], OnrampWalletPayload>('kassa:onramp-purchases', {
    stack: ONRAMP_STACK,
    onramp: true,
    wallet,
  });

/** An account's balance of a token on a chain, read from the chain in the test process (base units). */
export const balanceOf = async (chainId: number, token: string, account: string) =>
  BigInt(
    await executeServerCommand<string, ChainActionPayload>('bridge:chain', {
      stack: ONRAMP_STACK,
      chainId,
      action: 'balance',
      token,
      account,
    }),
  );

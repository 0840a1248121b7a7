/// <reference types="mocha" />
/**
 * The browser side of the component tests: the real stack through server commands
 * (kassa-stack-plugin.ts), mounting elements, and waiting for what the customer sees.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import type { OperatorPayment } from '../../schemas/proxy-api.ts';
import type { KassaCheckout, PaymentCreatedDetail } from '../../widget/kassa-checkout.ts';
import '../../widget/kassa.ts';
import {
  FRAME_PATH,
  type BankPayload,
  type CheckoutPayload,
  type ControlPayload,
  type StackPayload,
} from './stack-commands.ts';
import { PATIENCE_MS } from '../support/patience.ts';

export interface StackInfo {
  proxy: string;
  sandbox: string;
}

/** A named stack's addresses (started on first use, with `env` as its proxy settings). */
export const stackInfo = (stack = 'main', env?: Record<string, string>) =>
  executeServerCommand<StackInfo, StackPayload>('kassa:stack', { stack, env });

/** A checkout made the way a shop's server makes one (42.50 EUR, ORDER-1 unless `body` says otherwise). */
export const createCheckout = (body?: Record<string, unknown>, stack = 'main') =>
  executeServerCommand<string, CheckoutPayload>('kassa:checkout', { stack, body });

/** The emulator's control API (settle a payment, inject faults, ...). */
export const control = (path: string, body?: unknown, stack = 'main') =>
  executeServerCommand<{ status: number; body: unknown }, ControlPayload>('kassa:control', { stack, path, body });

/**
 * Holds the execution of a payment at the bank: once the customer authorises, it stays "waiting for
 * your bank" until the returned `release()`, instead of racing the emulator's settlement delay.
 */
export async function holdAtBank(transactionId: string, stack = 'main') {
  const move = async (action: 'hold' | 'release') => {
    const { status, body } = await control(`/payments/${transactionId}/${action}`, {}, stack);
    if (status !== 200) throw new Error(`${action} ${transactionId}: ${status} ${JSON.stringify(body)}`);
  };
  await move('hold');
  return { release: () => move('release') };
}

/** The customer's answer on the bank's page; `location` is where the bank sends them back. */
export const bank = (flowUrl: string, action: BankPayload['action'], providerId?: string) =>
  executeServerCommand<{ status: number; location: string | null }, BankPayload>('kassa:bank', {
    flowUrl,
    action,
    providerId,
  });

/** The payments the proxy holds for a checkout, as its operator sees them. */
export async function paymentsOf(checkoutId: string, stack = 'main'): Promise<OperatorPayment[]> {
  const payments = await executeServerCommand<OperatorPayment[], StackPayload>('kassa:payments', { stack });
  return payments.filter((payment) => payment.checkoutId === checkoutId);
}

/** Polls until `check` gives something truthy; fails, naming `what`, only when it never does. */
export async function until<T>(check: () => T | undefined | null | false, what: string | (() => string)): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = check();
    if (value) return value;
    // A function describes the state at the timeout, not at the start.
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Undone after each test: elements and frames removed, listeners taken off. */
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  sessionStorage.clear();
});

/** A <kassa-checkout> with these attributes, added to `parent` (the body by default) and removed after the test. */
export function mount(attributes: Record<string, string>, parent: ParentNode = document.body): KassaCheckout {
  const element = document.createElement('kassa-checkout');
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  parent.append(element);
  cleanups.push(() => element.remove());
  return element;
}

/** Mounts a checkout of a new 42.50 EUR checkout on the main stack, and waits until it is ready. */
export async function readyCheckout(
  attributes: Record<string, string> = {},
  body?: Record<string, unknown>,
): Promise<KassaCheckout> {
  const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout(body)]);
  const element = mount({ proxy, checkout, ...attributes });
  await phase(element, 'ready');
  return element;
}

/** Waits until the element (a checkout or a wallet panel) shows this phase, in its language (which may load after the phase is set). */
export const phase = <E extends HTMLElement & { phase: string }>(element: E, expected: E['phase']) =>
  until(
    () => element.phase === expected && part(element, 'status') && element,
    () => `phase ${expected} (now ${element.phase}: "${text(element, 'status')}")`,
  );

export const part = (element: Element, name: string) =>
  element.shadowRoot?.querySelector<HTMLElement>(`[part~="${name}"]`);

/** A part's text as the customer reads it (whitespace collapsed); '' when the part is absent. */
export const text = (element: Element, name: string) =>
  part(element, name)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

export interface Recorded {
  event: CustomEvent;
  /** Where it was dispatched (composedPath is empty once dispatch is over). */
  origin: EventTarget | undefined;
}

/** Whether a window now shows another origin's page (the bank's): its address cannot be read. */
export function onOtherOrigin(target: Window): boolean {
  try {
    return !target.location.href;
  } catch {
    return true;
  }
}

/** Every event of these types that reaches `target`, in order. */
export function record(target: EventTarget, ...types: string[]): Recorded[] {
  const seen: Recorded[] = [];
  const listener = (event: Event) => seen.push({ event: event as CustomEvent, origin: event.composedPath()[0] });
  for (const type of types) target.addEventListener(type, listener);
  cleanups.push(() => types.forEach((type) => target.removeEventListener(type, listener)));
  return seen;
}

/** The next payment the element makes (it goes on to the bank as usual); an on-ramp's embedded checkout's too. */
export function paymentCreated(element: HTMLElement): Promise<PaymentCreatedDetail> {
  return new Promise((resolve) =>
    element.addEventListener('kassa-payment-created', (event) => resolve(event.detail), { once: true }),
  );
}

/** Sends the customer to the bank without leaving the test page: the test plays the bank's part. */
export function stayOnPage(element: HTMLElement): Promise<PaymentCreatedDetail> {
  return new Promise((resolve) =>
    element.addEventListener(
      'kassa-payment-created',
      (event) => {
        event.preventDefault();
        resolve(event.detail);
      },
      { once: true },
    ),
  );
}

/**
 * The element on a page of its own (fixtures/frame.html, a configured return URL) in an iframe,
 * for journeys that leave the page: to the bank and back, reloads.
 */
export async function framed(attributes: Record<string, string>, search = '') {
  const iframe = document.createElement('iframe');
  iframe.style.cssText = 'width: 480px; height: 360px';
  iframe.src = `${FRAME_PATH}?attributes=${encodeURIComponent(JSON.stringify(attributes))}${search}`;
  document.body.append(iframe);
  cleanups.push(() => iframe.remove());
  const element = () => iframe.contentDocument?.querySelector('kassa-checkout') ?? undefined;
  await until(element, 'the framed element');
  return {
    iframe,
    element: () => until(element, 'the framed element'),
    /** Goes to this address (the bank's return, say), or reloads without one, and waits for the element there. */
    async visit(url?: string) {
      const loaded = new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
      if (url) iframe.src = url;
      else iframe.contentWindow!.location.reload();
      await loaded;
      return until(element, 'the framed element');
    },
  };
}

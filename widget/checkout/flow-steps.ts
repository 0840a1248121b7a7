import type { LitElement } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';
import type { Problem } from '../shared/problem-controller.ts';
import type { Action } from '../shared/views.ts';
import type { ProxyClient } from '../shared/proxy-client.ts';
import type * as AmountFieldModule from './amount-field.ts';
import type { AttemptStore } from './attempt-store.ts';
import type { CheckoutPhase } from './events.ts';
import type { CheckoutMessages } from './messages/en.ts';
import type * as PhoneHandoff from './phone-handoff.ts';
import type * as ReceiptModule from './receipt.ts';

/** What is to be paid, as the element shows it before and during a payment. */
export interface Summary {
  amount: string;
  currencyCode: string;
  reference: string;
  environment: string;
}

export type Phone = InstanceType<(typeof PhoneHandoff)['PhoneHandoff']>;
export type AmountField = InstanceType<(typeof AmountFieldModule)['AmountField']>;
export type Receipt = InstanceType<(typeof ReceiptModule)['Receipt']>;

/** What the end of a payment says and offers (payment-end.ts): handed over with the status stream. */
export interface PaymentEnd {
  /** The status line of a failed payment: why, and whether to contact the shop. */
  failedLine(m: CheckoutMessages): string;
  /** The main button once the payment ended: pay again, or (open amount) start again. */
  button(m: CheckoutMessages, locale: string): Action | undefined;
}

/** What the element shows of a payment under way: the parts a chunk may hand over. */
export interface FlowShown {
  summary?: Summary;
  /** The payment's latest status. */
  payment?: PaymentStatusView;
  /** The receipt of a completed payment (its chunk). */
  receipt?: Receipt;
  /** The popup showing the bank, closed once the bank has answered (undefined: none now). */
  bankWindow?: Window | undefined;
  end?: PaymentEnd;
}

/**
 * What a chunk of the checkout hands back to the flow (checkout-flow.ts) when the payment goes on,
 * which alone changes the flow's state: what is shown, then the phase, then the status followed
 * from then on. A step for an older load() is dropped.
 */
export interface FlowStep extends FlowShown {
  phase?: CheckoutPhase;
  /** From now on, this payment's status is followed. */
  follow?: string;
}

/**
 * What the checkout's chunks (payment-start.ts, status-follow.ts) see of the flow: what they read,
 * what they may ask for (a retry, a chunk loaded ahead), and where they hand what they found: a step
 * onwards, or why the payment cannot go on. They name this rather than the flow's class, which loads
 * them, and change nothing of it themselves.
 */
export interface PaymentFlow extends Readonly<FlowShown> {
  /** The element: its attributes, and the target of the events the chunks send. */
  readonly host: LitElement & {
    readonly checkout: string;
    readonly amount: string;
    readonly returnUrl: string;
    readonly locale: string;
    readonly phase: CheckoutPhase;
  };
  readonly field?: AmountField;
  readonly client?: ProxyClient;
  readonly attempts?: AttemptStore;
  /** The customer has been to the bank and back for the current payment. */
  readonly returned: boolean;
  /** Each load() bumps it; a chunk that finds it changed drops what it was doing. */
  readonly generation: number;
  /** Takes a step, for the load() current when the chunk began (now, by default). */
  apply(step: FlowStep, generation?: number): void;
  /** The proxy could not be used: the error is shown and reported, with what "Try again" does. */
  fail(error: unknown, retry: () => void): void;
  /** Refused by the element itself, in the customer's words (the chunk reports it to the page). */
  show(problem: Problem<CheckoutMessages>): void;
  /** The shop's setup cannot work: what to change, the developer's message, the customer's words, the HTTP status. */
  misconfigured(code: MisconfigurationCode, message: string, shown?: keyof CheckoutMessages, status?: number): void;
  load(): Promise<void>;
  /** Open amount: a new payment, from the field (emptied). */
  startAgain(): void;
  pay(onPhone?: boolean): Promise<void>;
  loadStream(): Promise<unknown>;
}

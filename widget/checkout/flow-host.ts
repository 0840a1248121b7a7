import type { ReactiveControllerHost } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { Problem, ProblemController } from '../shared/problem-controller.ts';
import type { ProxyClient } from '../shared/proxy-client.ts';
import type * as AmountFieldModule from './amount-field.ts';
import type { AttemptStore } from './attempt-store.ts';
import type { CheckoutErrorDetail, CheckoutPhase } from './events.ts';
import type { CheckoutMessages } from './messages/en.ts';
import type * as PhoneHandoff from './phone-handoff.ts';

/** What is to be paid, as the element shows it before and during a payment. */
export interface Summary {
  amount: string;
  currencyCode: string;
  reference: string;
  environment: string;
}

export type Phone = InstanceType<(typeof PhoneHandoff)['PhoneHandoff']>;
export type AmountField = InstanceType<(typeof AmountFieldModule)['AmountField']>;

/**
 * What the checkout's chunks (payment-start.ts, status-follow.ts) use of `<kassa-checkout>`. They
 * name this rather than the element's class, which loads them: neither side imports the other.
 */
export interface FlowHost extends HTMLElement, ReactiveControllerHost {
  readonly checkout: string;
  readonly returnUrl: string;
  readonly locale: string;
  phase: CheckoutPhase;
  summary?: Summary;
  payment?: PaymentStatusView;
  readonly field?: AmountField;
  readonly client?: ProxyClient;
  readonly attempts?: AttemptStore;
  readonly problems: ProblemController<CheckoutMessages, CheckoutErrorDetail>;
  /** The customer has been to the bank and back for the current payment. */
  returned: boolean;
  bankWindow?: Window;
  /** Each load() bumps it; answers that arrive for an older one are dropped. */
  readonly generation: number;
  load(): Promise<void>;
  pay(): Promise<void>;
  payOnPhone(): Promise<void>;
  follow(statusToken: string): Promise<void>;
  loadReceipt(): Promise<void>;
  loadStream(): Promise<unknown>;
  fail(error: unknown, retry: () => void): void;
  show(problem: Problem<CheckoutMessages>): void;
  closeBankWindow(): void;
}

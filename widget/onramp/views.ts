/**
 * The on-ramp's templates: the connected wallet, the order form and what it costs, and a purchase
 * under way or done. Each takes the controllers it shows; the element puts them together by phase.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { fromUnits } from '../../lib/money.ts';
import { formatMoney } from '../../lib/format-money.ts';
import { fill } from '../shared/i18n.ts';
import { stepsView, type StepState } from '../shared/steps-view.ts';
import { exampleAmount, tokenAmount } from '../shared/token-amount.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';
import { shorten, walletIcon, walletName } from '../shared/wallet/wallet-views.ts';
import type { OnrampAmountProblem } from './amounts.ts';
import type { OnrampPhase } from './events.ts';
import type { OnrampMessages } from './messages/en.ts';
import type { OrderForm } from './order-form.ts';
import { allows } from './phases.ts';
import type { PurchaseController } from './purchase-controller.ts';

const AMOUNT_MESSAGES: Record<Exclude<OnrampAmountProblem, 'empty'>, keyof OnrampMessages> = {
  invalid: 'amountInvalid',
  decimals: 'amountDecimals',
  below: 'belowMinimum',
  above: 'aboveMaximum',
};

/** The connected wallet: its name, the account the stablecoins go to, and "Disconnect". */
export function walletBar(
  wallets: WalletController,
  phase: OnrampPhase,
  m: OnrampMessages,
): TemplateResult | typeof nothing {
  const session = wallets.session;
  if (!session) return nothing;
  const name = walletName(session.wallet, m);
  return html`<div part="account" class="bar">
    <span class="who">${walletIcon(session.wallet, name)}<span>${name}</span></span>
    <span class="mono" title=${session.account} data-field="account">${shorten(session.account)}</span>
    ${allows(phase, 'disconnect') ? html`<button type="button" class="link" @click=${() => wallets.disconnect()}>${m.disconnect}</button>` : nothing}
  </div>`;
}

/**
 * No wallet in this browser: what a wallet is, and the merchant's page on getting one. The element
 * keeps listening: a wallet announcing itself later appears without a reload.
 */
export function firstRunView(m: OnrampMessages, about: TemplateResult): TemplateResult {
  return html`<section part="first-run" class="first-run" aria-labelledby="first-run-title">
    <p id="first-run-title" class="title">${m.walletHelpTitle}</p>
    ${about}
  </section>`;
}

/** What a wallet is, and the merchant's page on getting one (`help-url`). */
export function walletAbout(m: OnrampMessages, help: string | undefined): TemplateResult {
  return html`<p class="note">${m.walletHelp}</p>
    ${helpNote(m, help)}`;
}

/** The merchant's page on getting a wallet (`help-url`), when there is one. */
export function helpNote(m: OnrampMessages, help: string | undefined): TemplateResult | typeof nothing {
  return help
    ? html`<p class="note"><a part="help" href=${help} target="_blank" rel="noopener">${m.walletHelpLink}</a></p>`
    : nothing;
}

/** The bounds, or what is wrong with the amount typed (nothing about an empty field not yet left). */
function amountHint(form: OrderForm, m: OnrampMessages, locale: string): [text: string, problem: boolean] {
  const { config, symbol } = form;
  const reading = form.reading;
  const values = {
    min: tokenAmount(config!.min, symbol, locale),
    max: tokenAmount(config!.max, symbol, locale),
    example: exampleAmount(locale),
  };
  if (reading.ok || (reading.problem === 'empty' && !form.touched)) return [fill(m.bounds, values), false];
  const problem = reading.problem === 'empty' ? 'below' : reading.problem;
  return [fill(m[AMOUNT_MESSAGES[problem]], values), true];
}

/** The coin, the network and the tokens to receive; editable in the `ready` phase only. Enter in the amount buys. */
export function formView(
  form: OrderForm,
  phase: OnrampPhase,
  m: OnrampMessages,
  locale: string,
  buy: () => void,
): TemplateResult {
  const disabled = !allows(phase, 'edit');
  const [hint, problem] = amountHint(form, m, locale);
  const balanceText = form.balanceText(locale);
  const chain = form.chain()?.name ?? '';
  const balance =
    form.balance === undefined
      ? m.balanceLoading
      : balanceText
        ? fill(m.balance, { chain, amount: balanceText })
        : m.balanceUnavailable;
  const select = (id: 'coin' | 'chain', label: string, options: TemplateResult[]) =>
    html`<div class="field">
      <label for=${id}>${label}</label>
      <select
        id=${id}
        part=${id}
        ?disabled=${disabled}
        @change=${(event: Event) => form.choose(id, (event.target as HTMLSelectElement).value)}
      >
        ${options}
      </select>
    </div>`;
  return html`<div part="form" class="fields">
    ${select(
      'coin',
      m.coin,
      form
        .coins()
        .map(
          ({ symbol, currencyCode }) =>
            html`<option value=${symbol} ?selected=${symbol === form.symbol}>
              ${fill(m.coinOption, { symbol, currency: currencyCode })}
            </option>`,
        ),
    )}
    ${select(
      'chain',
      m.chain,
      form
        .chains()
        .map(
          (entry) =>
            html`<option value=${entry.chainId} ?selected=${entry.chainId === form.chainId}>${entry.name}</option>`,
        ),
    )}
    <div class="field wide">
      <label for="amount">${m.amount}</label>
      <div class="amount-row">
        <input
          id="amount"
          part="amount"
          inputmode="decimal"
          autocomplete="off"
          spellcheck="false"
          .value=${form.text}
          ?readonly=${disabled}
          aria-invalid=${problem ? 'true' : 'false'}
          aria-describedby="amount-hint amount-balance"
          @input=${(event: Event) => form.type((event.target as HTMLInputElement).value)}
          @blur=${() => form.leave()}
          @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && buy()}
        />
        <span aria-hidden="true">${form.symbol}</span>
      </div>
      <p id="amount-hint" part="amount-hint" class="hint ${problem ? 'danger' : ''}">${hint}</p>
      <p id="amount-balance" part="balance" class="hint">${balance}</p>
    </div>
  </div>`;
}

/** What the customer pays for the tokens typed, the fee included (a dash until the amount is valid). */
export function costView(form: OrderForm, m: OnrampMessages, locale: string): TemplateResult {
  const cost = form.payment;
  const currency = form.currency;
  return html`<div part="cost" class="cost">
    <span>${m.youPay}</span>
    <strong data-field="payment">${cost ? formatMoney(cost.payment, currency, locale) : '—'}</strong>
    ${form.config?.environment === 'sandbox' ? html`<span part="badge" class="badge">${m.sandbox}</span>` : nothing}
    ${cost && !/^0+(\.0+)?$/.test(cost.fee) ? html`<span class="hint" data-field="fee">${fill(m.feeIncluded, { fee: formatMoney(cost.fee, currency, locale) })}</span>` : nothing}
  </div>`;
}

/** The main button's label: "Buy 25 eEUR". */
export function buyLabel(form: OrderForm, m: OnrampMessages, locale: string): string {
  const reading = form.reading;
  return reading.ok ? fill(m.buy, { amount: tokenAmount(reading.amount, form.symbol, locale) }) : m.buyNothing;
}

/** The steps of a purchase, as far as its state goes. */
function steps(purchase: PurchaseController, phase: OnrampPhase, m: OnrampMessages, locale: string) {
  const view = purchase.view!;
  const paid = formatMoney(view.payment.amount, view.payment.currencyCode, locale);
  const reached = phase === 'delivered' ? 3 : phase === 'failed' ? 0 : 1;
  const state = (index: number): StepState => {
    if (phase === 'failed' && index === 0) return 'failed';
    if (phase === 'refunded' && index > 0) return 'pending';
    if (index < reached || phase === 'refunded') return 'done';
    return index === reached && phase !== 'failed' ? 'current' : 'pending';
  };
  return stepsView(
    [
      [fill(m.stepPaid, { amount: paid }), state(0)],
      [fill(m.stepMinting, { chain: view.chainName }), state(1)],
      [m.stepDelivered, state(2)],
    ],
    m,
  );
}

/** An explorer's address the proxy gave, only if it is a web page (never `javascript:` or the like). */
const webLink = (url: string | null) => !!url && /^https?:\/\//i.test(url);

/** A purchase after its payment: what it is, its steps, where the tokens go, the mint's transaction and the new balance. */
export function purchaseView(
  purchase: PurchaseController,
  phase: OnrampPhase,
  m: OnrampMessages,
  locale: string,
): TemplateResult | typeof nothing {
  const view = purchase.view;
  if (!view) return nothing;
  const token = tokenAmount(view.amount, view.symbol, locale);
  const balance = purchase.balance;
  const decimals = purchase.decimals(view);
  return html`<section part="purchase" class="purchase" aria-labelledby="purchase-title">
    <p id="purchase-title" class="title">${fill(m.on, { amount: token, chain: view.chainName })}</p>
    ${phase === 'paying' ? nothing : steps(purchase, phase, m, locale)}
    <dl>
      <div>
        <dt>${m.to}</dt>
        <dd class="mono" data-field="wallet">${view.wallet}</dd>
      </div>
      ${
        view.txHash
          ? html`<div>
              <dt>${m.transaction}</dt>
              <dd>
                <span part="hash" class="mono" data-field="hash">${view.txHash}</span>
                ${webLink(view.explorerUrl) ? html`<a part="explorer" href=${view.explorerUrl} target="_blank" rel="noopener noreferrer">${m.explorer}</a>` : nothing}
              </dd>
            </div>`
          : nothing
      }
    </dl>
    ${typeof balance === 'bigint' && decimals !== undefined ? html`<p class="note" data-field="new-balance">${fill(m.balance, { chain: view.chainName, amount: tokenAmount(fromUnits(balance, decimals), view.symbol, locale) })}</p>` : nothing}
  </section>`;
}

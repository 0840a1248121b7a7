/**
 * The wallet panel's templates: the wallet bar and list, the form, what a transaction does, and a
 * transfer under way. Each takes the controllers it shows; the element puts them together by phase.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { fromUnits } from '../../lib/money.ts';
import type { TransferPreview } from '../../lib/transfer-preview.ts';
import { fill } from '../shared/i18n.ts';
import { exampleAmount, tokenAmount, type AmountProblem } from '../shared/token-amount.ts';
import type { BridgePhase } from './events.ts';
import type { FormController } from './form-controller.ts';
import type { HistoryController } from './history-controller.ts';
import { copyButton, receiptView, significant } from './history-views.ts';
import type { BridgeMessages } from './messages/en.ts';
import { allows } from './phases.ts';
import type { TransferController } from './transfer-controller.ts';
import { stepsView, type StepState } from '../shared/steps-view.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';
import { shorten, walletIcon, walletName } from '../shared/wallet/wallet-views.ts';

const AMOUNT_MESSAGES: Record<Exclude<AmountProblem, 'empty'>, keyof BridgeMessages> = {
  invalid: 'amountInvalid',
  decimals: 'amountDecimals',
  zero: 'amountZero',
  insufficient: 'insufficientBalance',
};

/** The connected wallet's bar: the wallet, the account, its network, and "Disconnect". */
export function walletBar(
  wallets: WalletController,
  form: FormController,
  history: HistoryController,
  phase: BridgePhase,
  m: BridgeMessages,
): TemplateResult | typeof nothing {
  const session = wallets.session;
  if (!session) return nothing;
  const name = walletName(session.wallet, m);
  const id = session.chainId;
  const where = id === undefined ? '' : (form.chain(id)?.name ?? fill(m.otherChain, { chainId: String(id) }));
  return html`<div part="account" class="bar">
    <span class="who">${walletIcon(session.wallet, name)}<span>${name}</span></span>
    <span class="address"
      ><span class="mono" title=${session.account} data-field="account">${shorten(session.account)}</span>
      ${copyButton(history, session.account, m.address, m)}</span
    >
    ${where ? html`<span class="where" data-field="wallet-chain">${fill(m.walletOn, { chain: where })}</span>` : nothing}
    ${allows(phase, 'disconnect') ? html`<button type="button" class="link" @click=${() => wallets.disconnect()}>${m.disconnect}</button>` : nothing}
  </div>`;
}

/** The amount's problem as the user reads it, or '' (nothing said about an empty field not yet touched). */
function amountProblem(form: FormController, m: BridgeMessages, locale: string): string {
  const token = form.token(form.sourceId);
  const { reading } = form;
  if (reading.ok || !token || (!form.touched && reading.problem === 'empty')) return '';
  const problem = reading.problem === 'empty' ? 'zero' : reading.problem;
  return fill(m[AMOUNT_MESSAGES[problem]], {
    example: exampleAmount(locale),
    symbol: token.symbol,
    decimals: String(token.decimals),
    balance: form.balanceText(locale),
  });
}

/** The chains, the token and the amount; usable in the `ready` phase only. Enter in the amount reviews. */
export function formView(
  form: FormController,
  phase: BridgePhase,
  m: BridgeMessages,
  locale: string,
  review: () => void,
): TemplateResult {
  const disabled = !allows(phase, 'edit');
  const problem = amountProblem(form, m, locale);
  const balanceText = form.balanceText(locale);
  const balance =
    form.balance === undefined
      ? m.balanceLoading
      : balanceText
        ? fill(m.balance, { amount: balanceText })
        : m.balanceUnavailable;
  const select = (id: 'source' | 'destination' | 'token', label: string, options: TemplateResult[]) =>
    html`<div class="field${id === 'token' ? ' wide' : ''}">
      <label for=${id}>${label}</label>
      <select
        id=${id}
        ?disabled=${disabled}
        @change=${(event: Event) => form.choose(id, (event.target as HTMLSelectElement).value)}
      >
        ${options}
      </select>
    </div>`;
  const chainOptions = (selected: number) =>
    form.chains.map(
      (chain) => html`<option value=${chain.chainId} ?selected=${chain.chainId === selected}>${chain.name}</option>`,
    );
  const tokenOptions = form.symbols().map((symbol) => {
    const label = `${symbol} · ${form.token(form.sourceId, symbol)?.name ?? ''}`;
    return html`<option value=${symbol} ?selected=${symbol === form.symbol}>${label}</option>`;
  });
  return html`<div part="form" class="fields">
    ${select('source', m.from, chainOptions(form.sourceId))}
    <button
      type="button"
      class="secondary small"
      aria-label=${m.swap}
      title=${m.swap}
      ?disabled=${disabled}
      @click=${() => form.swap()}
    >
      <span aria-hidden="true">⇄</span>
    </button>
    ${select('destination', m.to, chainOptions(form.destinationId))} ${select('token', m.token, tokenOptions)}
    <div class="field wide">
      <label for="amount">${m.amount}</label>
      <div class="amount-row">
        <input
          id="amount"
          part="amount"
          inputmode="decimal"
          autocomplete="off"
          spellcheck="false"
          .value=${form.amountText}
          ?readonly=${disabled}
          aria-invalid=${problem ? 'true' : 'false'}
          aria-describedby=${problem ? 'amount-problem amount-balance' : 'amount-balance'}
          @input=${(event: Event) => form.type((event.target as HTMLInputElement).value)}
          @blur=${() => form.leave()}
          @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && review()}
        />
        <span aria-hidden="true">${form.symbol}</span>
        <button
          part="max"
          type="button"
          class="secondary small"
          ?disabled=${disabled || typeof form.balance !== 'bigint'}
          @click=${() => form.useMax()}
        >
          ${m.max}
        </button>
      </div>
      ${problem ? html`<p id="amount-problem" class="hint danger">${problem}</p>` : nothing}
      <p id="amount-balance" part="balance" class="hint">${balance}</p>
    </div>
  </div>`;
}

/** A transfer under way (or done, or failed): what moves where, its steps, and, until it ends, its hash. */
export function progressView(
  transfer: TransferController,
  form: FormController,
  phase: BridgePhase,
  m: BridgeMessages,
  locale: string,
): TemplateResult | typeof nothing {
  const { record, refunded } = transfer;
  if (!record) return nothing;
  const source = form.chain(record.sourceChainId)?.name ?? String(record.sourceChainId);
  const destination = form.chain(record.destinationChainId)?.name ?? String(record.destinationChainId);
  const failedAt = phase === 'failed' ? (transfer.failure?.stage === 'arrival' ? 2 : 1) : -1;
  const reached = phase === 'arrived' || phase === 'refunded' ? 3 : transfer.mined ? 2 : 1;
  const state = (index: number): StepState => {
    if (index === failedAt) return 'failed';
    if (index < reached) return 'done';
    return index === reached && phase !== 'failed' ? 'current' : 'pending';
  };
  return html`<section part="progress" class="progress" aria-label=${m.transaction}>
    <p class="title">${tokenAmount(record.amount, record.symbol, locale)} · ${source} → ${destination}</p>
    ${stepsView(
      [
        [fill(m.stepSent, { chain: source }), 'done'],
        [fill(m.stepMined, { chain: source }), state(1)],
        refunded
          ? [fill(m.stepRefunded, { chain: source }), 'done']
          : [fill(m.stepArrived, { chain: destination }), state(2)],
      ],
      m,
    )}
    ${
      // Once it has ended, the receipt under the status line shows the hash (with its copy button and explorer link).
      reached === 3
        ? nothing
        : html`<p class="note">${m.transaction}: <span part="hash" class="mono hash">${record.hash}</span></p>`
    }
  </section>`;
}

/** A transfer that ended (arrived, or refunded): the new balance, and its receipt. Shown under the status line that says so. */
export function outcomeView(
  transfer: TransferController,
  form: FormController,
  history: HistoryController,
  m: BridgeMessages,
  locale: string,
): TemplateResult | typeof nothing {
  const { record, arrived, refunded } = transfer;
  if (!record || !(arrived || refunded)) return nothing;
  const destination = form.chain(record.destinationChainId)?.name ?? String(record.destinationChainId);
  const token = form.token(record.destinationChainId, record.symbol);
  return html`${arrived && token ? html`<p class="note" data-field="new-balance">${fill(m.newBalance, { chain: destination, balance: tokenAmount(fromUnits(arrived.balance, token.decimals), token.symbol, locale) })}</p>` : nothing}
  ${receiptView(
    {
      record,
      state: refunded ? 'refunded' : 'arrived',
      ...history.entryOf(record),
      ...(arrived ? { destinationHash: arrived.destinationHash, destinationBalance: String(arrived.balance) } : {}),
      ...(refunded ? { refundHash: refunded.refundHash, sourceBalance: String(refunded.balance) } : {}),
    },
    form,
    history,
    m,
    locale,
  )}`;
}

/**
 * What the user is about to sign, in words, from `describeTransfer` (lib/transfer-preview.ts, the
 * decoder the extension's approval window uses too): what is burned where, what is minted where and
 * to whom, the contract and method called, the chain, and the most the fee can be.
 */
export function previewView(
  preview: TransferPreview,
  m: BridgeMessages,
  locale: string,
  walletChainId: number | undefined,
): TemplateResult {
  const { burn, mint, chain } = preview;
  return html`<section part="preview" class="preview" aria-labelledby="preview-title">
    <p id="preview-title" class="title">${m.previewTitle}</p>
    <dl>
      <div>
        <dt>${m.burn}</dt>
        <dd data-field="burn">
          ${fill(m.amountOn, { amount: tokenAmount(burn.amount, burn.token.symbol, locale), chain: chain.name })}
        </dd>
      </div>
      <div>
        <dt>${m.mint}</dt>
        <dd data-field="mint">
          ${fill(m.amountOn, { amount: tokenAmount(mint.amount, mint.token.symbol, locale), chain: mint.chainName })}
        </dd>
      </div>
      <div>
        <dt>${m.recipient}</dt>
        <dd data-field="recipient"><span class="mono">${mint.to}</span> (${m.yourAccount})</dd>
      </div>
      <div>
        <dt>${m.contract}</dt>
        <dd data-field="contract">
          <span class="mono">${preview.contract}</span> (${fill(m.contractOf, { symbol: burn.token.symbol })})
        </dd>
      </div>
      <div>
        <dt>${m.method}</dt>
        <dd data-field="method" class="mono method">${methodView(preview.method)}</dd>
      </div>
      <div>
        <dt>${m.network}</dt>
        <dd data-field="network">${fill(m.chainNumber, { chain: chain.name, chainId: String(chain.chainId) })}</dd>
      </div>
      <div>
        <dt>${m.maxFee}</dt>
        <dd data-field="fee" title=${tokenAmount(preview.maxFee, chain.nativeSymbol, locale)}>
          ${significant(preview.maxFee, chain.nativeSymbol, locale)}
        </dd>
      </div>
    </dl>
    ${walletChainId !== chain.chainId ? html`<p class="note" data-field="switch">${fill(m.switchNote, { chain: chain.name })}</p>` : nothing}
  </section>`;
}

/** `reforge(uint256,uint256,address)`, allowed to wrap only after `(` and each `,`, never mid-word. */
const methodView = (method: string) =>
  method.split(/(?<=[(,])/).map((piece, index) => (index ? html`<wbr />${piece}` : piece));

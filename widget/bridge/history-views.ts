/**
 * The panel's history templates: the account's recent transfers, and a transfer's receipt (both
 * transactions with copy buttons and explorer links, the balances afterwards, the fee paid).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { fromUnits } from '../../lib/money.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { fill } from '../shared/i18n.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import type { FormController } from './form-controller.ts';
import type { HistoryController } from './history-controller.ts';
import type { HistoryEntry, HistoryState } from './history-store.ts';
import type { BridgeMessages } from './messages/en.ts';

const STATE_WORDS: Record<HistoryState, keyof BridgeMessages> = {
  submitted: 'stateSubmitted',
  confirmed: 'stateConfirmed',
  arrived: 'stateArrived',
  delayed: 'stateDelayed',
  refunded: 'stateRefunded',
  failed: 'stateFailed',
};

/** What a receipt shows: a history entry, or the transfer the panel just followed. */
export type ReceiptFacts = Pick<
  HistoryEntry,
  'record' | 'state' | 'destinationHash' | 'refundHash' | 'sourceBalance' | 'destinationBalance' | 'fee'
>;

/** `0.0001767 ETH`: an amount to 4 significant digits (the full figure goes in `title`). */
export function significant(amount: string, symbol: string, locale: string): string {
  try {
    const rounded = new Intl.NumberFormat(locale, { maximumSignificantDigits: 4 }).format(
      amount as Intl.StringNumericLiteral,
    );
    return `${rounded} ${symbol}`;
  } catch {
    return `${amount} ${symbol}`;
  }
}

/** The explorer page of a transaction, when the chain listing names an http(s) explorer. */
export function explorerLink(chain: ChainEntry | undefined, hash: string): string | undefined {
  const base = chain?.blockExplorerUrl;
  if (!base) return undefined;
  try {
    const url = new URL(`${base.replace(/\/+$/, '')}/tx/${hash}`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A button copying `value`; "Copied" beside it for a moment once it has. */
export function copyButton(history: HistoryController, value: string, what: string, m: BridgeMessages): TemplateResult {
  const copied = history.copied === value;
  return html`<button
      type="button"
      class="link copy"
      data-copy=${value}
      aria-label=${fill(m.copyWhat, { what })}
      title=${fill(m.copyWhat, { what })}
      @click=${() => void history.copy(value)}
    >
      ${m.copy}</button
    >${copied ? html`<span class="copied" role="status">${m.copied}</span>` : nothing}`;
}

/** A transaction hash in full (it wraps), with its copy button and explorer link. */
function transaction(
  history: HistoryController,
  chain: ChainEntry | undefined,
  hash: string,
  field: string,
  label: string,
  m: BridgeMessages,
): TemplateResult {
  const link = explorerLink(chain, hash);
  return html`<div>
    <dt>${label}</dt>
    <dd data-field=${field}>
      <span part=${field === 'source-hash' ? 'hash' : nothing} class="mono hash">${hash}</span>
      ${copyButton(history, hash, label, m)}
      ${link ? html`<a href=${link} target="_blank" rel="noopener noreferrer">${m.explorer}</a>` : nothing}
    </dd>
  </div>`;
}

/** A transfer's receipt: the transactions, the balances afterwards, the fee. */
export function receiptView(
  facts: ReceiptFacts,
  form: FormController,
  history: HistoryController,
  m: BridgeMessages,
  locale: string,
): TemplateResult {
  const { record } = facts;
  const source = form.chain(record.sourceChainId);
  const destination = form.chain(record.destinationChainId);
  const name = (chain: ChainEntry | undefined, id: number) => chain?.name ?? String(id);
  const sourceName = name(source, record.sourceChainId);
  const destinationName = name(destination, record.destinationChainId);
  const balance = (units: string | undefined, chain: ChainEntry | undefined, chainName: string, field: string) => {
    const token = chain?.tokens[record.symbol];
    if (units === undefined || !token) return nothing;
    return html`<div>
      <dt>${fill(m.balanceOn, { chain: chainName })}</dt>
      <dd data-field=${field}>${tokenAmount(fromUnits(BigInt(units), token.decimals), token.symbol, locale)}</dd>
    </div>`;
  };
  const fee = facts.fee ?? record.fee;
  const feeAmount = fee && source ? fromUnits(BigInt(fee), source.nativeCurrency.decimals) : undefined;
  return html`<dl part="receipt" class="receipt">
    ${transaction(history, source, record.hash, 'source-hash', fill(m.sentOn, { chain: sourceName }), m)}
    ${
      facts.destinationHash
        ? transaction(
            history,
            destination,
            facts.destinationHash,
            'destination-hash',
            fill(m.receivedOn, { chain: destinationName }),
            m,
          )
        : nothing
    }
    ${
      facts.refundHash
        ? transaction(history, source, facts.refundHash, 'refund-hash', fill(m.refundedOn, { chain: sourceName }), m)
        : nothing
    }
    ${balance(facts.sourceBalance, source, sourceName, 'source-balance')}
    ${balance(facts.destinationBalance, destination, destinationName, 'destination-balance')}
    ${
      feeAmount && source
        ? html`<div>
            <dt>${m.fee}</dt>
            <dd data-field="paid-fee" title=${tokenAmount(feeAmount, source.nativeCurrency.symbol, locale)}>
              ${significant(feeAmount, source.nativeCurrency.symbol, locale)}
            </dd>
          </div>`
        : nothing
    }
  </dl>`;
}

/** One line of a transfer: amount, chains, state. */
export const summary = (entry: HistoryEntry, form: FormController, locale: string) =>
  `${tokenAmount(entry.record.amount, entry.record.symbol, locale)} · ${
    form.chain(entry.record.sourceChainId)?.name ?? entry.record.sourceChainId
  } → ${form.chain(entry.record.destinationChainId)?.name ?? entry.record.destinationChainId}`;

/** The account's recent transfers, each opening its receipt. */
export function historyList(
  history: HistoryController,
  form: FormController,
  m: BridgeMessages,
  locale: string,
): TemplateResult | typeof nothing {
  if (!history.entries.length) return nothing;
  const when = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' });
  return html`<section part="history" class="history" aria-labelledby="history-title">
    <p id="history-title" class="title">${m.history}</p>
    <ul>
      ${history.entries.slice(0, 10).map((entry) => {
        const line = summary(entry, form, locale);
        return html`<li data-id=${entry.id} data-state=${entry.state}>
          <button type="button" class="entry" @click=${() => history.show(entry.id)}>
            <span class="what">${line}</span>
            <span class="state ${entry.state}">${m[STATE_WORDS[entry.state]]}</span>
            <time class="when" datetime=${new Date(entry.sentAt).toISOString()}>${when.format(entry.sentAt)}</time>
          </button>
        </li>`;
      })}
    </ul>
  </section>`;
}

/** A transfer of the history, opened: what moved where, its state, and its receipt. */
export function detailView(
  entry: HistoryEntry,
  form: FormController,
  history: HistoryController,
  m: BridgeMessages,
  locale: string,
): TemplateResult {
  return html`<section part="detail" class="progress" aria-labelledby="detail-title">
    <p id="detail-title" class="title">${summary(entry, form, locale)}</p>
    <p class="note" data-field="state">
      <span class="state ${entry.state}">${m[STATE_WORDS[entry.state]]}</span> ·
      <time datetime=${new Date(entry.sentAt).toISOString()}
        >${new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(entry.sentAt)}</time
      >
    </p>
    ${receiptView(entry, form, history, m, locale)}
  </section>`;
}

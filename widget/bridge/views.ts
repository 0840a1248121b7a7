import { html, nothing, type TemplateResult } from 'lit';
import type { TransferPreview } from '../../lib/transfer-preview.ts';
import { tokenAmount } from './amount.ts';
import { fill } from '../shared/i18n.ts';
import type { BridgeMessages } from './messages/en.ts';
import type { DiscoveredWallet } from './wallets.ts';

/** `0xf39F…2266`: an address or hash short enough for a header; the full one goes in `title`. */
export const shorten = (value: string) => (value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value);

/** A wallet's icon: its `data:` image (checked when announced), else its initial; decorative either way, its name is beside it. */
export function walletIcon(wallet: DiscoveredWallet, name: string): TemplateResult {
  return wallet.info.icon
    ? html`<img class="icon" src=${wallet.info.icon} alt="" width="24" height="24" />`
    : html`<span class="icon initial" aria-hidden="true">${name.slice(0, 1).toUpperCase()}</span>`;
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
        <dd data-field="method" class="mono">${preview.method}</dd>
      </div>
      <div>
        <dt>${m.network}</dt>
        <dd data-field="network">${fill(m.chainNumber, { chain: chain.name, chainId: String(chain.chainId) })}</dd>
      </div>
      <div>
        <dt>${m.maxFee}</dt>
        <dd data-field="fee">${tokenAmount(preview.maxFee, chain.nativeSymbol, locale)}</dd>
      </div>
    </dl>
    ${walletChainId !== chain.chainId ? html`<p class="note" data-field="switch">${fill(m.switchNote, { chain: chain.name })}</p>` : nothing}
  </section>`;
}

export type StepState = 'done' | 'current' | 'pending' | 'failed';

/** The steps of a transfer under way (sent, confirmed, arrived), each with its state in words for screen readers. */
export function stepsView(steps: Array<[label: string, state: StepState]>, m: BridgeMessages): TemplateResult {
  const words: Record<StepState, string> = {
    done: m.stepDone,
    current: m.stepCurrent,
    pending: m.stepPending,
    failed: m.stepFailed,
  };
  return html`<ol part="steps" class="steps">
    ${steps.map(
      ([label, state]) =>
        html`<li class=${state} data-state=${state} aria-current=${state === 'current' ? 'step' : nothing}>
          <span class="mark" aria-hidden="true"></span
          ><span>${label}<span class="visually-hidden">: ${words[state]}</span></span>
        </li>`,
    )}
  </ol>`;
}

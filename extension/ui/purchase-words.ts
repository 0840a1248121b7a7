import { html, type TemplateResult } from 'lit';
import type { OperatorPurchase } from '../../schemas/onramp.ts';
import { fill, type ExtensionMessages } from './ui-locale.ts';

/** Whole tokens in the language's digits, every decimal kept (`25 eEUR`, `12,5 eGBR`): amounts signed or minted are exact. */
export function tokenAmount(amount: string, symbol: string, language: string): string {
  try {
    const digits = new Intl.NumberFormat(language, { maximumFractionDigits: 20 });
    return `${digits.format(amount as Intl.StringNumericLiteral)} ${symbol}`;
  } catch {
    return `${amount} ${symbol}`;
  }
}

/** `0x1234…cdef`: enough of a hash or an address to recognise it where the full one does not fit. */
export const shortHex = (value: string): string => `${value.slice(0, 6)}…${value.slice(-4)}`;

/**
 * A purchase's mint on the chain: its hash (shortened in a list, `short`), linked to the chain's
 * explorer when the proxy gives an http(s) page for it.
 */
export function chainTransaction(
  purchase: Pick<OperatorPurchase, 'txHash' | 'explorerUrl'>,
  m: ExtensionMessages,
  short = false,
): TemplateResult {
  const hash = purchase.txHash ?? '';
  const text = short ? shortHex(hash) : hash;
  const url = purchase.explorerUrl && /^https?:\/\//.test(purchase.explorerUrl) ? purchase.explorerUrl : undefined;
  return url
    ? html`<a class="mono tx" href=${url} target="_blank" rel="noreferrer" aria-label=${fill(m.onExplorer, { hash })}
        >${text}</a
      >`
    : html`<span class="mono tx" title=${hash}>${text}</span>`;
}

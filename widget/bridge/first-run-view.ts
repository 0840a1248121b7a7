import { html, nothing, type TemplateResult } from 'lit';
import { fill } from '../shared/i18n.ts';
import type { FormController } from './form-controller.ts';
import type { BridgeMessages } from './messages/en.ts';

/** `a, b and c` in the locale's words. */
function list(items: string[], locale: string): string {
  try {
    return new Intl.ListFormat(locale, { type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

/** The merchant's help page, when it is an http(s) URL (nothing else becomes a link). */
export function helpLink(url: string, base: string): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * No wallet in this browser: what the panel would move and where, what a wallet is, and the
 * merchant's page on getting one. The panel keeps listening: a wallet announcing itself later
 * (an extension installed or unlocked meanwhile) appears without a reload.
 */
export function firstRunView(form: FormController, m: BridgeMessages, locale: string, help?: string): TemplateResult {
  const chains = form.chains.map((chain) => chain.name);
  const tokens = [...new Set(form.chains.flatMap((chain) => Object.keys(chain.tokens)))];
  return html`<section part="first-run" class="first-run" aria-labelledby="first-run-title">
    ${
      chains.length && tokens.length
        ? html`<p data-field="offered">
            ${fill(m.offered, { tokens: list(tokens, locale), chains: list(chains, locale) })}
          </p>`
        : nothing
    }
    <p id="first-run-title" class="title">${m.walletHelpTitle}</p>
    <p class="note">${m.walletHelp}</p>
    ${
      help
        ? html`<p class="note"><a part="help" href=${help} target="_blank" rel="noopener">${m.walletHelpLink}</a></p>`
        : nothing
    }
  </section>`;
}

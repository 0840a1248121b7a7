/** The wallet list and what names a wallet, as every Kassa element that connects one shows them. */
import { html, nothing, type TemplateResult } from 'lit';
import type { WalletController } from './wallet-controller.ts';
import { INJECTED_RDNS, type DiscoveredWallet } from './wallets.ts';

/** The words the wallet list needs, in the element's language. */
export interface WalletMessages {
  /** The list's name for assistive technology. */
  wallets: string;
  /** `window.ethereum`, which has no name of its own. */
  browserWallet: string;
}

/** `0xf39F…2266`: an address or hash short enough for a header; the full one goes in `title`. */
export const shorten = (value: string) => (value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value);

/** A wallet's icon: its `data:` image (checked when announced), else its initial; decorative either way, its name is beside it. */
export function walletIcon(wallet: DiscoveredWallet, name: string): TemplateResult {
  return wallet.info.icon
    ? html`<img class="icon" src=${wallet.info.icon} alt="" width="24" height="24" />`
    : html`<span class="icon initial" aria-hidden="true">${name.slice(0, 1).toUpperCase()}</span>`;
}

/** A wallet's name; `window.ethereum`, which has none, is "Browser wallet". */
export const walletName = (wallet: DiscoveredWallet, m: WalletMessages) =>
  wallet.info.rdns === INJECTED_RDNS && !wallet.info.name ? m.browserWallet : wallet.info.name;

/**
 * The wallets to choose from, with a spinner on the one connecting. Wallets that announce the same
 * name (a page or another extension can copy a wallet's name and icon) are told apart by their rdns.
 */
export function walletList(wallets: WalletController, m: WalletMessages): TemplateResult {
  if (!wallets.wallets.length) return html``;
  const names = wallets.wallets.map((wallet) => walletName(wallet, m).trim().toLowerCase());
  return html`<ul part="wallets" class="wallets" aria-label=${m.wallets}>
    ${wallets.wallets.map((wallet, index) => {
      const name = walletName(wallet, m);
      const busy = wallets.connectingTo === wallet;
      const shared = names.indexOf(names[index]!) !== names.lastIndexOf(names[index]!);
      return html`<li>
        <button
          part="wallet"
          type="button"
          class="wallet"
          data-rdns=${wallet.info.rdns}
          aria-disabled=${wallets.connectingTo ? 'true' : 'false'}
          @click=${() => void wallets.connect(wallet)}
        >
          ${walletIcon(wallet, name)}<span>${name}</span>${shared ? html`<span class="rdns" part="wallet-rdns">${wallet.info.rdns}</span>` : nothing}${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}
        </button>
      </li>`;
    })}
  </ul>`;
}

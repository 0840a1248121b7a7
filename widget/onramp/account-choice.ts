import { html, type LitElement, type TemplateResult } from 'lit';
import { helpLink } from '../bridge/first-run-view.ts';
import { onDemand } from '../shared/on-demand.ts';
import type { Action } from '../shared/views.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';
import { fill } from '../shared/i18n.ts';
import { walletList, walletName } from '../shared/wallet/wallet-views.ts';
import type { OnrampPhase } from './events.ts';
import type { OnrampMessages } from './messages/en.ts';
import type { OutsideWallet } from './outside-wallet/outside-wallet.ts';
import type { OnrampProblems } from './problems.ts';
import { firstRunView, helpNote, walletAbout, walletBar } from './views.ts';

/**
 * Where the account the stablecoins go to comes from: a wallet of this browser (the wallet
 * controller's list), or a wallet outside it (outside-wallet/, a chunk fetched when first needed):
 * a wallet app on this phone, the phone itself from a computer, or an address the customer types
 * and signs for in any wallet app.
 */
export class AccountChoice {
  private outside?: OutsideWallet;
  private readonly load = onDemand(async () => {
    const { OutsideWallet } = await import('./outside-wallet/outside-wallet.ts');
    this.outside ??= new OutsideWallet(this.host, this.wallet);
    this.host.requestUpdate();
    return this.outside;
  });

  constructor(
    private readonly host: LitElement,
    private readonly wallet: WalletController,
    private readonly problems: OnrampProblems,
  ) {}

  /** The ways without a wallet here are on their way: the element keeps its empty card meanwhile, so nothing moves. */
  preparing = false;

  /** No wallet has answered by now: most likely there is none here, and the ways without one are needed. */
  prepare(): void {
    if (this.wallet.wallets.length || this.outside) return;
    this.preparing = true;
    void this.load()
      .catch(() => undefined)
      .finally(() => {
        this.preparing = false;
        this.host.requestUpdate();
      });
  }

  /** "Use an address": the customer types the address the stablecoins go to, and signs in a wallet app elsewhere. */
  private useAddress(): void {
    this.load().then(
      (outside) => outside.enter(),
      (error: unknown) => this.problems.proxyFailed(error, () => this.useAddress()),
    );
  }

  /** The `connect` phase: the browser's wallets; with none, the ways without one; or the address being typed. */
  view(m: OnrampMessages, locale: string, helpUrl: string): TemplateResult {
    const { outside, wallet } = this;
    if (outside?.entering) return outside.addressView(locale);
    if (wallet.wallets.length || !wallet.settled) return walletList(wallet, m);
    const help = helpLink(helpUrl, document.baseURI);
    return outside
      ? outside.noWalletView(locale, { about: walletAbout(m, help), help: helpNote(m, help) })
      : firstRunView(m, walletAbout(m, help));
  }

  /** While an address's purchase waits for its signature: the message to sign, and the field to paste it in. */
  signing(m: OnrampMessages, phase: OnrampPhase, locale: string): TemplateResult | undefined {
    const { outside, wallet } = this;
    return phase === 'signing' && outside?.owns(wallet.session)
      ? html`${walletBar(wallet, phase, m)} ${outside.signView(locale)}`
      : undefined;
  }

  /** The status line while the account is chosen and connected, or an address's purchase waits for its signature. */
  status(m: OnrampMessages, phase: OnrampPhase, locale: string): string | undefined {
    const { outside, wallet } = this;
    if (phase === 'connect') {
      if (outside?.entering) return '';
      return wallet.wallets.length ? m.chooseWallet : wallet.settled ? m.noWallet : m.lookingForWallets;
    }
    if (phase === 'connecting')
      return fill(m.connecting, { wallet: wallet.connectingTo ? walletName(wallet.connectingTo, m) : '' });
    return outside?.status(phase, wallet.session, locale);
  }

  /** The buttons of choosing the account: the address's or the signature's, or "Use an address" (and "Look for wallets again"). */
  buttons(m: OnrampMessages, phase: OnrampPhase, locale: string): Action[] | undefined {
    const outside = this.outside?.buttons(phase, this.wallet.session, locale);
    if (outside || phase !== 'connect') return outside;
    // Still looking for wallets: nothing yet that the wallets or the ways without one would push down.
    if (!this.wallet.wallets.length && !this.wallet.settled) return [];
    const useAddress: Action = [m.useAddress, () => this.useAddress(), false, 'secondary'];
    return !this.wallet.wallets.length && this.wallet.settled
      ? [useAddress, [m.lookAgain, () => this.wallet.lookAgain(), false, 'secondary']]
      : [useAddress];
  }
}

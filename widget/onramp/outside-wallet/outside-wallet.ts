/**
 * A wallet outside this browser, for the on-ramp (a chunk: fetched only when a customer has no
 * wallet here, or chooses to use an address). On a phone it opens the page in a wallet app's own
 * browser; on a computer it shows the page's QR code, to go on with the phone. Or the customer types
 * their address, and signs the ownership message in any wallet app's "Sign message": the element
 * shows the message and takes the signature pasted back, and buys exactly as with a wallet here
 * (the proxy checks the signature, EIP-191 or EIP-1271, before anything is paid).
 */
import { html, nothing, type LitElement, type TemplateResult } from 'lit';
import { addStyles } from '../../shared/add-styles.ts';
import { desktop } from '../../shared/pointer.ts';
import type { Action } from '../../shared/views.ts';
import type { WalletController } from '../../shared/wallet/wallet-controller.ts';
import type { WalletSession } from '../../shared/wallet/wallets.ts';
import { readAddress, readSignature } from './address-reading.ts';
import { AddressSigner } from './address-signer.ts';
import { outsideMessages, type OutsideMessages } from './outside-messages.ts';
import { addressView, continueOnPhoneView, outsideStyles, signView, walletAppsView } from './outside-views.ts';

const SIGNATURE_PROBLEMS = {
  empty: 'signatureInvalid',
  invalid: 'signatureInvalid',
  key: 'signatureKey',
  phrase: 'signaturePhrase',
} as const satisfies Record<string, keyof OutsideMessages>;

export class OutsideWallet {
  /** The customer chose "Use an address" and has not gone on or back. */
  entering = false;
  private address = { text: '', problem: false };
  private signature: { text: string; problem?: keyof OutsideMessages } = { text: '' };
  private copied = false;
  private signer?: AddressSigner;

  constructor(
    private readonly host: LitElement,
    private readonly wallet: WalletController,
  ) {
    addStyles(host, outsideStyles);
  }

  m(locale: string): OutsideMessages {
    return outsideMessages(locale);
  }

  /** Whether the connected account is an address the customer entered here. */
  owns(session: WalletSession | undefined): boolean {
    return !!this.signer && session?.wallet.provider === this.signer;
  }

  /**
   * No wallet in this browser: on a phone, this page in a wallet app (and the merchant's help page);
   * on a computer, its QR code for the phone, and what a wallet is.
   */
  noWalletView(locale: string, { about, help }: Record<'about' | 'help', TemplateResult | typeof nothing>) {
    const m = this.m(locale);
    const page = new URL(location.href);
    page.hash = '';
    return html`<section part="first-run" class="first-run" aria-labelledby="first-run-title">
      ${desktop() ? html`${continueOnPhoneView(this.host, page, m)} ${about}` : html`${walletAppsView(page, m)} ${help}`}
    </section>`;
  }

  /** "Use an address": its field, with focus in it. */
  enter(): void {
    this.entering = true;
    this.address.problem = false;
    this.focus('#address');
  }

  addressView(locale: string): TemplateResult {
    const { text, problem } = this.address;
    return addressView(
      text,
      problem,
      this.m(locale),
      (typed) => this.update(() => (this.address = { text: typed, problem: false })),
      () => void this.useAddress(locale),
    );
  }

  /** The address typed, as the account the stablecoins go to: connected like a wallet, once it reads as an address. */
  private async useAddress(locale: string): Promise<void> {
    const address = readAddress(this.address.text);
    if (!address) return this.update(() => (this.address.problem = true));
    this.signer?.cancel();
    const signer = new AddressSigner(address, () => this.signatureAsked());
    this.signer = signer;
    this.entering = false;
    await this.wallet.connect(signer.wallet(this.m(locale).yourAddress));
  }

  /** The message to sign came (or went): a fresh signature field, and focus on the message to copy. */
  private signatureAsked(): void {
    this.signature = { text: '' };
    this.copied = false;
    if (this.signer?.pending) this.focus('#message');
    else this.host.requestUpdate();
  }

  /** The message to sign and the signature's field, while the purchase waits for it. */
  signView(locale: string): TemplateResult | typeof nothing {
    const pending = this.signer?.pending;
    if (!pending) return nothing;
    return signView(pending.message, this.signature, this.copied, this.m(locale), {
      copy: () =>
        void navigator.clipboard?.writeText(pending.message).then(() => this.update(() => (this.copied = true))),
      type: (text) => this.update(() => (this.signature = { text })),
    });
  }

  /** The signature pasted, if it reads as one; otherwise why not, under its field. */
  private confirm(): void {
    const reading = readSignature(this.signature.text);
    if (reading.ok) return this.signer?.sign(reading.signature);
    this.update(() => (this.signature.problem = SIGNATURE_PROBLEMS[reading.problem]));
    this.focus('#signature');
  }

  /** Its buttons, where it has the say: the address's Continue and Back, the signature's Confirm and Cancel. */
  buttons(phase: string, session: WalletSession | undefined, locale: string): Action[] | undefined {
    const m = this.m(locale);
    if (this.entering && phase === 'connect')
      return [
        [m.continue, () => void this.useAddress(locale)],
        [m.back, () => this.update(() => (this.entering = false)), false, 'secondary'],
      ];
    if (phase === 'signing' && this.signer?.pending && this.owns(session))
      return [
        [m.confirm, () => this.confirm()],
        [m.cancel, () => this.signer?.cancel(), false, 'secondary'],
      ];
    return undefined;
  }

  /** The status line while the purchase waits for the signature from the wallet app. */
  status(phase: string, session: WalletSession | undefined, locale: string): string | undefined {
    return phase === 'signing' && this.owns(session) ? this.m(locale).waiting : undefined;
  }

  private update(change: () => unknown): void {
    change();
    this.host.requestUpdate();
  }

  private focus(selector: string): void {
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const target = this.host.renderRoot.querySelector<HTMLElement>(selector);
      target?.focus();
      // A message to copy is read from its start, not where focus left the caret.
      if (target instanceof HTMLTextAreaElement) target.setSelectionRange(0, 0);
      if (target) target.scrollTop = 0;
    });
  }
}

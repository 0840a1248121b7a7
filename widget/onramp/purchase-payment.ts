import { html, nothing, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { PurchaseController } from './purchase-controller.ts';
import { withPurchase } from './purchase-link.ts';

/** The on-ramp's attributes the embedded checkout takes on. */
interface CheckoutAttributes {
  returnUrl: string;
  locale: string;
  mode: 'redirect' | 'popup';
  theme: 'auto' | 'light' | 'dark';
}

/**
 * The purchase's payment: the embedded `<kassa-checkout>` of its checkout, paid here (the bank in
 * this tab or a popup) or with the phone, and whether it has a payment under way.
 */
export class PurchasePayment {
  /** The purchase whose checkout has a payment under way (started, or followed after a reload). */
  private payingFor?: string;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly purchases: PurchaseController,
  ) {}

  /** "Start over" is offered only while there is none, so a customer never leaves a payment in flight. */
  get underWay(): boolean {
    return this.payingFor === this.purchases.view?.purchaseId;
  }

  /**
   * `<kassa-checkout>` is defined by kassa.js, which loads this chunk; importing it here instead would
   * make the build move Lit out of kassa.js into a chunk of its own.
   */
  view({ returnUrl, locale, mode, theme }: CheckoutAttributes): TemplateResult | typeof nothing {
    const { view, token, client } = this.purchases;
    if (!view || !token) return nothing;
    return html`<kassa-checkout
      part="checkout"
      proxy=${client!.origin}
      checkout=${view.checkoutId}
      return-url=${returnUrl ? withPurchase(returnUrl, token) : nothing}
      locale=${locale || nothing}
      mode=${mode}
      theme=${theme}
      @kassa-payment-created=${() => this.paying(true)}
      @kassa-status=${(event: CustomEvent<PaymentStatusView>) => this.paying(event.detail.status !== 'FAILED')}
    ></kassa-checkout>`;
  }

  private paying(paying: boolean): void {
    this.payingFor = paying ? this.purchases.view?.purchaseId : undefined;
    this.host.requestUpdate();
  }
}

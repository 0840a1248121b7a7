import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { PURCHASE_STATES, type OperatorPurchase, type PurchaseList, type PurchaseState } from '../../schemas/onramp.ts';
import { formatMoney } from '../../widget/ui.ts';
import { breakable } from './breakable.ts';
import { ask, messageOf, UiError } from './client.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { chainTransaction, tokenAmount } from './purchase-words.ts';
import './purchase-detail.ts';
import { relativeTime } from './relative-time.ts';
import { fittedTable, pageStyles, rowLinks } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

const LIMIT = 50;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-purchases-view': KassaPurchasesView;
  }
}

/**
 * The on-ramp's purchases (`GET /api/onramp/purchases`), newest first: the tokens and their chain,
 * the payment and its status, the mint order and the chain transaction (with its explorer link), the
 * state and the age; filtered by state, _Load more_ for older ones. A row opens the purchase's
 * detail, where a delayed purchase's mint is retried or it is marked refunded. A proxy without the
 * on-ramp says so. Fits a 360 px side panel without sideways scrolling.
 */
@customElement('kassa-purchases-view')
export class KassaPurchasesView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    css`
      th:nth-child(2),
      th:nth-child(3) {
        inline-size: 24%;
      }
      th:nth-child(4) {
        inline-size: 22%;
      }
    `,
  ];

  /** Where the next page starts; null when there is none. */
  @state() private nextCursor: string | null = null;
  /** The proxy has no on-ramp (its purchase routes answer 404). */
  @state() private off = false;
  private readonly list = new ListController<OperatorPurchase, PurchaseState | ''>(this, {
    filter: '',
    load: async (chosen) => {
      let page: PurchaseList;
      try {
        page = await ask({ kind: 'purchases.list', state: chosen || undefined, limit: LIMIT });
      } catch (error) {
        this.off = error instanceof UiError && error.status === 404;
        if (this.off) return [];
        throw error;
      }
      this.off = false;
      this.readAt = Date.now();
      this.nextCursor = page.nextCursor;
      // The open purchase is read again with its list.
      void this.renderRoot?.querySelector('kassa-purchase-detail')?.load();
      return page.purchases;
    },
  });
  @state() private selected?: string;
  @state() private error?: string;
  @state() private busy = false;
  /** The time ages are counted from: when the list was last read. */
  private readAt = Date.now();
  private readonly locale = new UiLocale(this);

  private async more(): Promise<void> {
    if (!this.nextCursor) return;
    this.busy = true;
    try {
      const page = await ask({
        kind: 'purchases.list',
        state: this.list.filter || undefined,
        limit: LIMIT,
        cursor: this.nextCursor,
      });
      const known = new Set(this.list.items.map((purchase) => purchase.purchaseId));
      this.list.items = [...this.list.items, ...page.purchases.filter((purchase) => !known.has(purchase.purchaseId))];
      this.nextCursor = page.nextCursor;
      this.error = undefined;
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
    }
  }

  private row(purchase: OperatorPurchase) {
    const { m, language } = this.locale;
    const tokens = tokenAmount(purchase.amount, purchase.symbol, language);
    return html`<tr
      data-purchase=${purchase.purchaseId}
      aria-selected=${this.selected === purchase.purchaseId ? 'true' : 'false'}
    >
      <td>
        <button
          aria-label=${`${tokens}: ${fill(m.detailsOf, { id: purchase.purchaseId })}`}
          @click=${() => (this.selected = purchase.purchaseId)}
        >
          ${tokens}
        </button>
        <br /><span class="muted">${outsideText(purchase.chainName)}</span>
      </td>
      <td>
        ${outsideText(formatMoney(purchase.payment.amount, purchase.payment.currencyCode, language))}
        <br /><span class="muted">${outsideText(purchase.payment.status ?? '—')}</span>
      </td>
      <td>
        ${purchase.order ? outsideText(purchase.order.orderStatus ?? '—') : '—'}
        ${purchase.txHash ? html`<br />${chainTransaction(purchase, m, true)}` : nothing}
      </td>
      <td>
        <span class="status">${breakable(purchase.state, '_')}</span><br /><span class="muted"
          >${relativeTime(Date.parse(purchase.createdAt) - this.readAt, language, 'short')}</span
        >
      </td>
    </tr>`;
  }

  override render() {
    const { m } = this.locale;
    return html`
      <kassa-filter-bar
        label=${m.state}
        filter-label=${m.filterByState}
        .choices=${PURCHASE_STATES}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          void this.list.setFilter(event.detail.value as PurchaseState | '')}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      ${this.off ? html`<p role="note" class="card" id="onramp-off">${m.onrampOff}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${
        this.selected
          ? html`<kassa-purchase-detail
              purchase-id=${this.selected}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-purchase-changed=${() => void this.list.refresh()}
            ></kassa-purchase-detail>`
          : nothing
      }
      ${
        this.off
          ? nothing
          : this.list.render({
              label: m.purchases,
              loading: m.loading,
              headings: [m.purchaseHeading, m.payment, m.mintOrder, m.state],
              row: (purchase) => this.row(purchase),
              empty: (chosen) => (chosen ? fill(m.noPurchasesWith, { state: chosen }) : m.noPurchases),
            })
      }
      ${
        this.nextCursor
          ? html`<button class="secondary small" ?disabled=${this.busy} @click=${() => void this.more()}>
              ${m.loadMore}
            </button>`
          : nothing
      }
    `;
  }
}

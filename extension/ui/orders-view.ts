import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  createOrderRequestSchema,
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  orderListSchema,
  STABLECOINS,
  updateOrderRequestSchema,
  type Order,
  type OrderStatus,
} from '../../schemas/orders.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import type { WalletStatus } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { pageStyles } from './styles.ts';

const ORDER_FIELDS = ['stableCoin', 'amount', 'mintWallet', 'chainId', 'customerName', 'customerOrder'] as const;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-orders-view': KassaOrdersView;
  }
}

/**
 * Stablecoin mint orders through the proxy: list (by status), create (validated with the order
 * service's own schema before anything is sent, the chain picked from the proxy's listing), change
 * amount and status, delete. The service's refusals are shown as it worded them.
 */
@customElement('kassa-orders-view')
export class KassaOrdersView extends LitElement {
  static override styles = pageStyles;

  private readonly list = new ListController<Order, OrderStatus | ''>(this, {
    filter: '',
    load: async (filterStatus) =>
      orderListSchema.parse(await ask({ kind: 'orders.list', filterStatus: filterStatus || undefined })),
  });
  @state() private chains: ChainEntry[] = [];
  @state() private editing?: string;
  @state() private confirming?: string;
  @state() private formError?: string;
  @state() private notice?: string;
  @state() private defaultWallet = '';

  override connectedCallback(): void {
    super.connectedCallback();
    ask<ChainEntry[]>({ kind: 'chains.list' }).then(
      (chains) => (this.chains = chains),
      (error) => (this.formError = `The chain listing could not be read: ${messageOf(error)}`),
    );
    ask<WalletStatus>({ kind: 'vault.status' }).then(
      (status) => (this.defaultWallet = status.address ?? ''),
      () => undefined,
    );
  }

  private readonly create = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    // Read before any await: once dispatch ends, a shadow-DOM event's target is null.
    const formElement = event.target as HTMLFormElement;
    const order = formValues(formElement, ORDER_FIELDS);
    this.notice = undefined;
    const parsed = createOrderRequestSchema.safeParse(order);
    if (!parsed.success) {
      this.formError = describeZodError(parsed.error);
      return;
    }
    if (!this.chains.some((chain) => chain.chainId === parsed.data.chainId)) {
      this.formError = `Chain ${parsed.data.chainId} is not in the proxy's chain listing`;
      return;
    }
    if (!this.list.filter && this.list.items.some((existing) => existing.customerOrder === parsed.data.customerOrder)) {
      this.formError = `Customer order "${parsed.data.customerOrder}" is already used`;
      return;
    }
    try {
      const created = await ask<{ message: string; orderId: string }>({ kind: 'orders.create', order });
      this.formError = undefined;
      this.notice = `${created.message} (${created.orderId})`;
      formElement.reset();
      await this.list.refresh();
    } catch (error) {
      this.formError = messageOf(error);
    }
  };

  private saveOrder(event: SubmitEvent, order: Order): Promise<void> {
    event.preventDefault();
    const values = formValues(event.target as HTMLFormElement, ['amount', 'orderStatus']);
    const amount = values.amount.trim();
    const change = {
      ...(amount !== order.amount ? { amount } : {}),
      ...(values.orderStatus !== order.orderStatus ? { orderStatus: values.orderStatus } : {}),
    };
    return this.list.act(
      () => {
        const parsed = updateOrderRequestSchema.safeParse(change);
        if (!parsed.success) throw new Error(describeZodError(parsed.error));
        return ask<{ message: string }>({ kind: 'orders.update', orderId: order.orderId, ...parsed.data });
      },
      (updated) => {
        this.notice = updated.message;
        this.editing = undefined;
      },
    );
  }

  private removeOrder(order: Order): Promise<void> {
    this.confirming = undefined;
    return this.list.act(
      () => ask<{ message: string }>({ kind: 'orders.delete', orderId: order.orderId }),
      (deleted) => (this.notice = deleted.message),
    );
  }

  private chainName(chainId: number): string {
    return this.chains.find((chain) => chain.chainId === chainId)?.name ?? String(chainId);
  }

  private editor(order: Order) {
    const next = [order.orderStatus, ...(ORDER_TRANSITIONS[order.orderStatus as OrderStatus] ?? [])];
    return html`<tr>
      <td colspan="5">
        <form
          class="row"
          aria-label="Edit ${order.customerOrder}"
          @submit=${(event: SubmitEvent) => void this.saveOrder(event, order)}
        >
          <label>Amount <input name="amount" inputmode="decimal" .value=${order.amount} /></label>
          <label
            >Status
            <select name="orderStatus">
              ${next.map((status) => html`<option ?selected=${status === order.orderStatus}>${status}</option>`)}
            </select>
          </label>
          <button type="submit" class="small">Save changes</button>
          <button type="button" class="secondary small" @click=${() => (this.editing = undefined)}>Cancel</button>
        </form>
      </td>
    </tr>`;
  }

  /** An order's row, and under it its editor while open. */
  private row(order: Order) {
    return html`<tr data-order=${order.orderId}>
        <td>${order.customerOrder}<br /><span class="muted">${order.customerName}</span></td>
        <td>${order.amount} ${order.stableCoin}</td>
        <td>${this.chainName(order.chainId)}</td>
        <td class="status">${order.orderStatus}</td>
        <td>
          <button
            class="secondary small"
            aria-label="Edit ${order.customerOrder}"
            @click=${() => (this.editing = this.editing === order.orderId ? undefined : order.orderId)}
          >
            Edit
          </button>
          ${
            this.confirming === order.orderId
              ? html`<button
                  class="danger small"
                  aria-label="Confirm delete ${order.customerOrder}"
                  @click=${() => void this.removeOrder(order)}
                >
                  Confirm
                </button>`
              : html`<button
                  class="secondary small"
                  aria-label="Delete ${order.customerOrder}"
                  @click=${() => (this.confirming = order.orderId)}
                >
                  Delete
                </button>`
          }
        </td>
      </tr>
      ${this.editing === order.orderId ? this.editor(order) : nothing}`;
  }

  override render() {
    return html`
      <kassa-filter-bar
        .choices=${ORDER_STATUSES}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          void this.list.setFilter(event.detail.value as OrderStatus | '')}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.list.render({
        label: 'Orders',
        headings: ['Order', 'Amount', 'Chain', 'Status', ''],
        row: (order) => this.row(order),
        empty: (filter) => `No orders${filter ? ` with status ${filter}` : ''}.`,
      })}
      <details>
        <summary>New order</summary>
        <form aria-label="New order" novalidate @submit=${this.create}>
          <div class="row">
            <label
              >Stablecoin
              <select name="stableCoin">
                ${STABLECOINS.map((coin) => html`<option>${coin}</option>`)}
              </select>
            </label>
            <label>Amount <input name="amount" inputmode="decimal" placeholder="100.00" /></label>
          </div>
          <label
            >Chain
            <select name="chainId">
              ${this.chains.map((chain) => html`<option value=${chain.chainId}>${chain.name} (${chain.chainId})</option>`)}
            </select>
          </label>
          <label
            >Mint wallet <input name="mintWallet" class="mono" placeholder="0x…" .value=${this.defaultWallet}
          /></label>
          <label>Customer name <input name="customerName" maxlength="100" /></label>
          <label>Customer order <input name="customerOrder" maxlength="64" /></label>
          ${this.formError ? html`<p role="alert" class="error" id="form-error">${this.formError}</p>` : nothing}
          <button type="submit">Create order</button>
        </form>
      </details>
    `;
  }
}

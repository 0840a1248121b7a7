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
import { pageStyles } from './styles.ts';

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

  @state() private orders: Order[] = [];
  @state() private chains: ChainEntry[] = [];
  @state() private filter: OrderStatus | '' = '';
  @state() private editing?: string;
  @state() private confirming?: string;
  @state() private listError?: string;
  @state() private formError?: string;
  @state() private notice?: string;
  @state() private defaultWallet = '';
  @state() private loading = true;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
    ask<ChainEntry[]>({ kind: 'chains.list' }).then(
      (chains) => (this.chains = chains),
      (error) => (this.formError = `The chain listing could not be read: ${messageOf(error)}`),
    );
    ask<WalletStatus>({ kind: 'vault.status' }).then(
      (status) => (this.defaultWallet = status.address ?? ''),
      () => undefined,
    );
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      this.orders = orderListSchema.parse(await ask({ kind: 'orders.list', filterStatus: this.filter || undefined }));
      this.listError = undefined;
    } catch (error) {
      this.listError = messageOf(error);
    } finally {
      this.loading = false;
    }
  }

  private async create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const form = new FormData(formElement);
    const order = Object.fromEntries(
      ['stableCoin', 'amount', 'mintWallet', 'chainId', 'customerName', 'customerOrder'].map((name) => [
        name,
        String(form.get(name) ?? ''),
      ]),
    );
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
    if (!this.filter && this.orders.some((existing) => existing.customerOrder === parsed.data.customerOrder)) {
      this.formError = `Customer order "${parsed.data.customerOrder}" is already used`;
      return;
    }
    try {
      const created = await ask<{ message: string; orderId: string }>({ kind: 'orders.create', order });
      this.formError = undefined;
      this.notice = `${created.message} (${created.orderId})`;
      formElement.reset();
      await this.load();
    } catch (error) {
      this.formError = messageOf(error);
    }
  }

  private async saveOrder(event: SubmitEvent, order: Order): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const amount = String(form.get('amount') ?? '').trim();
    const orderStatus = String(form.get('orderStatus') ?? '');
    const change = {
      ...(amount !== order.amount ? { amount } : {}),
      ...(orderStatus !== order.orderStatus ? { orderStatus } : {}),
    };
    const parsed = updateOrderRequestSchema.safeParse(change);
    if (!parsed.success) {
      this.listError = describeZodError(parsed.error);
      return;
    }
    try {
      const updated = await ask<{ message: string }>({
        kind: 'orders.update',
        orderId: order.orderId,
        ...(change as { amount?: string; orderStatus?: OrderStatus }),
      });
      this.notice = updated.message;
      this.listError = undefined;
      this.editing = undefined;
      await this.load();
    } catch (error) {
      this.listError = messageOf(error);
    }
  }

  private async removeOrder(order: Order): Promise<void> {
    this.confirming = undefined;
    try {
      const deleted = await ask<{ message: string }>({ kind: 'orders.delete', orderId: order.orderId });
      this.notice = deleted.message;
      this.listError = undefined;
      await this.load();
    } catch (error) {
      this.listError = messageOf(error);
    }
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

  private rows() {
    return this.orders.map(
      (order) =>
        html`<tr data-order=${order.orderId}>
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
          ${this.editing === order.orderId ? this.editor(order) : nothing}`,
    );
  }

  override render() {
    return html`
      <div class="row">
        <label
          >Status
          <select
            name="filterStatus"
            aria-label="Filter by status"
            @change=${(event: Event) => {
              this.filter = (event.target as HTMLSelectElement).value as OrderStatus | '';
              void this.load();
            }}
          >
            <option value="">All</option>
            ${ORDER_STATUSES.map((status) => html`<option>${status}</option>`)}
          </select>
        </label>
        <button class="secondary small" @click=${() => void this.load()}>Refresh</button>
      </div>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.listError ? html`<p role="alert" class="error" id="list-error">${this.listError}</p>` : nothing}
      ${
        this.loading && !this.orders.length
          ? html`<p class="muted">Loading…</p>`
          : this.orders.length === 0
            ? html`<p class="muted">No orders${this.filter ? ` with status ${this.filter}` : ''}.</p>`
            : html`<table aria-label="Orders">
                <thead>
                  <tr>
                    <th>Order</th>
                    <th>Amount</th>
                    <th>Chain</th>
                    <th>Status</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${this.rows()}
                </tbody>
              </table>`
      }
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

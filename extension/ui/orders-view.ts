import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
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
import type { ApprovalRequestView } from '../operator-messages.ts';
import './approval-card.ts';
import { ask, messageOf } from './client.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { ORDER_FIELDS, orderProblems, type OrderField, type OrderProblems } from './order-problems.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-orders-view': KassaOrdersView;
  }
}

/**
 * Stablecoin mint orders through the proxy: list (by status), create (validated with the order
 * service's own schema before anything is sent, the chain picked from the proxy's listing), change
 * amount and status, delete. The form speaks in words: one problem at a time under each field, in
 * the user's language; the service's refusals are shown as it worded them. A notice of success goes
 * as soon as the next action starts, so it never stands beside a failure. Creating and changing are
 * money (dual control): unless below the merchant's threshold, the proxy answers with a request a
 * second person decides, shown here as sent for approval. Only a role with `orders:write` is offered
 * the form and the changes.
 */
@customElement('kassa-orders-view')
export class KassaOrdersView extends LitElement {
  static override styles = pageStyles;

  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  private readonly list = new ListController<Order, OrderStatus | ''>(this, {
    filter: '',
    load: async (filterStatus) =>
      orderListSchema.parse(await ask({ kind: 'orders.list', filterStatus: filterStatus || undefined })),
    describe: (error) => refusalText(error, this.locale),
  });
  /** The last change sent for a second person's approval. */
  @state() private sent?: ApprovalRequestView;
  @state() private chains: ChainEntry[] = [];
  @state() private editing?: string;
  @state() private confirming?: string;
  @state() private formError?: string;
  @state() private problems: OrderProblems = {};
  @state() private editProblems: OrderProblems = {};
  @state() private notice?: string;
  @state() private defaultWallet = '';

  override connectedCallback(): void {
    super.connectedCallback();
    ask({ kind: 'chains.list' }).then(
      (chains) => (this.chains = chains),
      (error) => (this.formError = fill(this.locale.m.chainListUnread, { error: messageOf(error) })),
    );
    ask({ kind: 'vault.status' }).then(
      (status) => (this.defaultWallet = status.address ?? ''),
      () => undefined,
    );
  }

  private readonly create = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    // Read before any await: once dispatch ends, a shadow-DOM event's target is null.
    const formElement = event.target as HTMLFormElement;
    const order = formValues(formElement, ORDER_FIELDS);
    const { m } = this.locale;
    this.notice = this.formError = this.sent = undefined;
    const parsed = createOrderRequestSchema.safeParse(order);
    const problems: OrderProblems = parsed.success ? {} : orderProblems(parsed.error, m);
    if (parsed.success && !this.chains.some((chain) => chain.chainId === parsed.data.chainId))
      problems.chainId = m.problemChain;
    const taken = parsed.success ? parsed.data.customerOrder : undefined;
    if (taken && !this.list.filter && this.list.items.some((existing) => existing.customerOrder === taken))
      problems.customerOrder = fill(m.problemOrderTaken, { order: taken });
    this.problems = problems;
    const first = ORDER_FIELDS.find((field) => problems[field]);
    if (first) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`[name=${first}]`)?.focus();
      return;
    }
    try {
      const answer = await ask({ kind: 'orders.create', order });
      if ('done' in answer) this.notice = `${answer.done.message} (${answer.done.orderId})`;
      else this.sent = answer.sentForApproval;
      formElement.reset();
      await this.list.refresh();
    } catch (error) {
      this.formError = refusalText(error, this.locale);
    }
  };

  private saveOrder(event: SubmitEvent, order: Order): Promise<void> {
    event.preventDefault();
    this.notice = this.sent = undefined;
    this.editProblems = {};
    const values = formValues(event.target as HTMLFormElement, ['amount', 'orderStatus']);
    const amount = values.amount.trim();
    const change = {
      ...(amount !== order.amount ? { amount } : {}),
      ...(values.orderStatus !== order.orderStatus ? { orderStatus: values.orderStatus } : {}),
    };
    return this.list.act(
      () => {
        const parsed = updateOrderRequestSchema.safeParse(change);
        if (!parsed.success) {
          this.editProblems = orderProblems(parsed.error, this.locale.m);
          throw new Error(Object.values(this.editProblems)[0] ?? this.locale.m.problemAmount);
        }
        return ask({ kind: 'orders.update', orderId: order.orderId, ...parsed.data });
      },
      (answer) => {
        if ('done' in answer) this.notice = answer.done.message;
        else this.sent = answer.sentForApproval;
        this.editing = undefined;
      },
    );
  }

  private removeOrder(order: Order): Promise<void> {
    this.confirming = undefined;
    this.notice = this.sent = undefined;
    return this.list.act(
      () => ask({ kind: 'orders.delete', orderId: order.orderId }),
      (deleted) => (this.notice = deleted.message),
    );
  }

  private chainName(chainId: number): string {
    return this.chains.find((chain) => chain.chainId === chainId)?.name ?? String(chainId);
  }

  /** A field's label, its control and its problem (described by it, and marking it invalid). */
  private field(field: OrderField, label: string, control: (invalid: boolean) => unknown, problems: OrderProblems) {
    const problem = problems[field];
    return html`<div class="stack">
      <label>${label} ${control(!!problem)}</label>
      ${problem ? html`<span class="error" id="${field}-problem">${problem}</span>` : nothing}
    </div>`;
  }

  private editor(order: Order) {
    const { m } = this.locale;
    const next = [order.orderStatus, ...(ORDER_TRANSITIONS[order.orderStatus as OrderStatus] ?? [])];
    const problems = this.editProblems;
    return html`<tr>
      <td colspan="5">
        <form
          class="row"
          aria-label=${fill(m.editOrder, { order: order.customerOrder })}
          @submit=${(event: SubmitEvent) => void this.saveOrder(event, order)}
        >
          ${this.field(
            'amount',
            m.amount,
            (invalid) =>
              html`<input
                name="amount"
                inputmode="decimal"
                .value=${order.amount}
                aria-invalid=${invalid ? 'true' : 'false'}
                aria-describedby=${invalid ? 'amount-problem' : nothing}
              />`,
            problems,
          )}
          <label
            >${m.status}
            <select name="orderStatus">
              ${next.map((status) => html`<option ?selected=${status === order.orderStatus}>${status}</option>`)}
            </select>
          </label>
          <button type="submit" class="small">${m.saveChanges}</button>
          <button type="button" class="secondary small" @click=${() => (this.editing = undefined)}>${m.cancel}</button>
        </form>
      </td>
    </tr>`;
  }

  /** An order's row, and under it its editor while open. */
  private row(order: Order) {
    return html`<tr data-order=${order.orderId}>
        <td>${outsideText(order.customerOrder)}<br /><span class="muted">${outsideText(order.customerName)}</span></td>
        <td>${outsideText(order.amount)} ${outsideText(order.stableCoin)}</td>
        <td>${outsideText(this.chainName(order.chainId))}</td>
        <td class="status">${outsideText(order.orderStatus)}</td>
        ${this.session.can('orders:write') ? this.changes(order) : nothing}
      </tr>
      ${this.editing === order.orderId ? this.editor(order) : nothing}`;
  }

  /** An order's Edit and Delete buttons (for a role with orders:write). */
  private changes(order: Order) {
    const { m } = this.locale;
    const name = { order: order.customerOrder };
    return html`<td>
      <button
        class="secondary small"
        aria-label=${fill(m.editOrder, name)}
        @click=${() => {
          this.editProblems = {};
          this.editing = this.editing === order.orderId ? undefined : order.orderId;
        }}
      >
        ${m.edit}
      </button>
      ${
        this.confirming === order.orderId
          ? html`<button
              class="danger small"
              aria-label=${fill(m.confirmDelete, name)}
              @click=${() => void this.removeOrder(order)}
            >
              ${m.confirm}
            </button>`
          : html`<button
              class="secondary small"
              aria-label=${fill(m.deleteOrder, name)}
              @click=${() => (this.confirming = order.orderId)}
            >
              ${m.delete}
            </button>`
      }
    </td>`;
  }

  override render() {
    const { m } = this.locale;
    const problems = this.problems;
    const writes = this.session.can('orders:write');
    const input = (field: OrderField, attributes: { placeholder?: string; maxlength?: number; value?: string } = {}) =>
      this.field(
        field,
        m[field as 'amount' | 'mintWallet' | 'customerName' | 'customerOrder'],
        (invalid) =>
          html`<input
            name=${field}
            class=${field === 'mintWallet' ? 'mono' : ''}
            inputmode=${field === 'amount' ? 'decimal' : nothing}
            placeholder=${attributes.placeholder ?? nothing}
            maxlength=${attributes.maxlength ?? nothing}
            .value=${attributes.value ?? ''}
            aria-invalid=${invalid ? 'true' : 'false'}
            aria-describedby=${invalid ? `${field}-problem` : nothing}
          />`,
        problems,
      );
    return html`
      <kassa-filter-bar
        .choices=${ORDER_STATUSES}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          void this.list.setFilter(event.detail.value as OrderStatus | '')}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        this.sent
          ? html`<p role="status" class="ok" id="sent-for-approval">${m.sentForApproval}</p>
              <kassa-approval-card .approval=${this.sent}></kassa-approval-card>`
          : nothing
      }
      ${this.list.render({
        label: m.orders,
        loading: m.loading,
        headings: [m.orderHeading, m.amount, m.chain, m.status, ...(writes ? [''] : [])],
        actions: m.actions,
        row: (order) => this.row(order),
        empty: (filter) => (filter ? fill(m.noOrdersWith, { status: filter }) : m.noOrders),
      })}
      ${
        writes
          ? this.newOrder(input)
          : // A refusal of the form that is no longer offered (the role was lowered meanwhile) stays in view.
            this.formError
            ? html`<p role="alert" class="error" id="form-error">${this.formError}</p>`
            : nothing
      }
    `;
  }

  /** The form of a new order (for a role with orders:write). */
  private newOrder(
    input: (field: OrderField, attributes?: { placeholder?: string; maxlength?: number; value?: string }) => unknown,
  ) {
    const { m } = this.locale;
    const problems = this.problems;
    return html`
      <details>
        <summary>${m.newOrder}</summary>
        <form aria-label=${m.newOrder} novalidate @submit=${this.create}>
          <div class="row">
            <label
              >${m.stablecoin}
              <select name="stableCoin">
                ${STABLECOINS.map((coin) => html`<option>${coin}</option>`)}
              </select>
            </label>
            ${input('amount', { placeholder: '100.00' })}
          </div>
          ${this.field(
            'chainId',
            m.chain,
            () =>
              html`<select name="chainId">
                ${this.chains.map((chain) => html`<option value=${chain.chainId}>${chain.name} (${chain.chainId})</option>`)}
              </select>`,
            problems,
          )}
          ${input('mintWallet', { placeholder: '0x…', value: this.defaultWallet })}
          ${input('customerName', { maxlength: 100 })} ${input('customerOrder', { maxlength: 64 })}
          ${this.formError ? html`<p role="alert" class="error" id="form-error">${this.formError}</p>` : nothing}
          <button type="submit">${m.createOrder}</button>
        </form>
      </details>
    `;
  }
}

import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { isDecimal } from '../../lib/money.ts';
import type { PaymentSearch } from '../messages.ts';
import { dayOf, dayStart } from './day-field.ts';
import { formValues } from './form-values.ts';
import { pageStyles } from './styles.ts';
import { UiLocale } from './ui-locale.ts';

export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;

export interface SearchDetail {
  /** The search to read the list with (only the fields given). */
  search: PaymentSearch;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-payment-search': KassaPaymentSearch;
  }
  interface HTMLElementEventMap {
    'kassa-search': CustomEvent<SearchDetail>;
  }
}

/** Whether a payment (as listed, or as the live stream announces it) falls within a search. */
export function matchesSearch(
  payment: { status?: unknown; checkoutId?: unknown; reference?: unknown; amount?: unknown; initiatedAt?: unknown },
  search: PaymentSearch,
): boolean {
  const amount = Number(payment.amount);
  const started = Date.parse(String(payment.initiatedAt));
  return (
    (!search.status || payment.status === search.status) &&
    (!search.checkoutId || payment.checkoutId === search.checkoutId) &&
    (!search.reference || payment.reference === search.reference) &&
    (!search.from || started >= Date.parse(search.from)) &&
    (!search.to || started < Date.parse(search.to)) &&
    (!search.minAmount || amount >= Number(search.minAmount)) &&
    (!search.maxAmount || amount <= Number(search.maxAmount))
  );
}

const FIELDS = ['status', 'reference', 'checkoutId', 'from', 'to', 'minAmount', 'maxAmount'] as const;

/**
 * The operator's search of payments: status (applied at once), reference, checkout, the days they
 * were created from and to (both included), and an amount range (applied with Search). It holds no
 * list: the view listens and reads its list again.
 *
 * @fires kassa-search - A search to apply (`SearchDetail`).
 *
 * @csspart form - The search form.
 */
@customElement('kassa-payment-search')
export class KassaPaymentSearch extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      .fields {
        display: grid;
        grid-template-columns: repeat(2, minmax(0, 1fr));
        gap: 0.4rem 0.5rem;
      }
      input,
      select {
        inline-size: 100%;
        box-sizing: border-box;
      }
    `,
  ];

  /** The search applied, which the fields show. */
  @property({ attribute: false }) value: PaymentSearch = {};
  @state() private problem?: string;
  private readonly locale = new UiLocale(this);

  private read(form: HTMLFormElement): PaymentSearch | undefined {
    const { m } = this.locale;
    const values = formValues(form, FIELDS);
    const from = values.from ? dayStart(values.from) : undefined;
    const to = values.to ? dayStart(values.to, 1) : undefined;
    const [minAmount, maxAmount] = [values.minAmount, values.maxAmount].map((amount) => amount.replace(',', '.'));
    if ([minAmount, maxAmount].some((amount) => amount && !isDecimal(amount)))
      return void (this.problem = m.problemSearchAmount);
    if (minAmount && maxAmount && Number(minAmount) > Number(maxAmount))
      return void (this.problem = m.problemAmountRange);
    if (from && to && from >= to) return void (this.problem = m.problemDateRange);
    this.problem = undefined;
    const search: PaymentSearch = {
      status: values.status,
      reference: values.reference.trim(),
      checkoutId: values.checkoutId.trim(),
      from,
      to,
      minAmount,
      maxAmount,
    };
    return Object.fromEntries(Object.entries(search).filter(([, value]) => value));
  }

  private emit(form: HTMLFormElement): void {
    const search = this.read(form);
    if (search)
      this.dispatchEvent(new CustomEvent('kassa-search', { detail: { search }, bubbles: true, composed: true }));
  }

  private readonly onSubmit = (event: SubmitEvent): void => {
    event.preventDefault();
    this.emit(event.target as HTMLFormElement);
  };

  private readonly onClear = (event: Event): void => {
    const form = (event.target as HTMLElement).closest('form')!;
    form.reset();
    for (const field of form.querySelectorAll('input')) field.value = '';
    form.querySelector('select')!.value = '';
    this.emit(form);
  };

  override render() {
    const { m } = this.locale;
    const search = this.value;
    return html`<form part="form" aria-label=${m.searchForm} @submit=${this.onSubmit}>
      <div class="fields">
        <label
          >${m.status}
          <select
            name="status"
            aria-label=${m.filterBy}
            @change=${(event: Event) => this.emit((event.target as HTMLSelectElement).form!)}
          >
            <option value="" ?selected=${!search.status}>${m.all}</option>
            ${PAYMENT_STATUSES.map(
              (status) => html`<option value=${status} ?selected=${search.status === status}>${status}</option>`,
            )}
          </select>
        </label>
        <label>${m.reference} <input name="reference" maxlength="200" .value=${search.reference ?? ''} /></label>
        <label>${m.fromDate} <input type="date" name="from" .value=${dayOf(search.from)} /></label>
        <label>${m.toDate} <input type="date" name="to" .value=${dayOf(search.to, -1)} /></label>
        <label
          >${m.minAmount} <input name="minAmount" inputmode="decimal" maxlength="32" .value=${search.minAmount ?? ''}
        /></label>
        <label
          >${m.maxAmount} <input name="maxAmount" inputmode="decimal" maxlength="32" .value=${search.maxAmount ?? ''}
        /></label>
        <label
          >${m.checkoutId} <input name="checkoutId" maxlength="100" .value=${search.checkoutId ?? ''} class="mono"
        /></label>
      </div>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing}
      <div class="row">
        <button type="submit" class="small">${m.search}</button>
        <button type="button" class="secondary small" @click=${this.onClear}>${m.clear}</button>
      </div>
    </form>`;
  }
}

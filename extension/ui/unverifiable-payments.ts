import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import {
  resolvedPaymentSchema,
  unverifiableListSchema,
  type OperatorPayment,
  type UnverifiablePayment,
} from '../../schemas/proxy-api.ts';
import { formatMoney } from '../../widget/ui.ts';
import { ask, messageOf } from './client.ts';
import { formValues } from './form-values.ts';
import { outsideText } from './outside-text.ts';
import { pageStyles } from './styles.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import { fill, UiLocale } from './ui-locale.ts';

type Settlement = 'COMPLETED' | 'FAILED';

/** What a webhook said: its status, else its event's name. */
function webhookWord(event: Record<string, unknown>): string {
  for (const field of [event.status, event.event]) if (typeof field === 'string') return field;
  return '?';
}

export interface ResolvedDetail {
  /** The payment as the proxy now has it (final). */
  payment: OperatorPayment;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-unverifiable-payments': KassaUnverifiablePayments;
  }
  interface HTMLElementEventMap {
    'kassa-resolved': CustomEvent<ResolvedDetail>;
  }
}

/**
 * The payments Kassa can no longer ask the payment service about (their key revoked, say): why, since
 * when, and the last webhook the service sent. The operator settles each against the bank statement:
 * Resolve, the outcome and a note (required), then a confirmation, since it is final. Nothing shows
 * while there are none.
 *
 * @fires kassa-resolved - A payment was resolved (`ResolvedDetail`).
 */
@customElement('kassa-unverifiable-payments')
export class KassaUnverifiablePayments extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      .card {
        border-color: var(--_danger);
      }
      dl {
        margin: 0 0 0.5rem;
      }
      ul {
        list-style: none;
        padding: 0;
        margin: 0;
      }
      textarea {
        inline-size: 100%;
        box-sizing: border-box;
      }
    `,
  ];

  @state() private entries: UnverifiablePayment[] = [];
  /** The payment whose Resolve form is open. */
  @state() private resolving?: string;
  /** The outcome and note given, waiting for the operator's confirmation. */
  @state() private pending?: { status: Settlement; note: string };
  @state() private error?: string;
  @state() private notice?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  /** Reads the list again. */
  async load(): Promise<void> {
    try {
      this.entries = unverifiableListSchema.parse(await ask({ kind: 'payments.unverifiable' })).payments;
      this.error = undefined;
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  private open(transactionId?: string): void {
    this.resolving = transactionId;
    this.pending = undefined;
    this.error = undefined;
  }

  private readonly onSubmit = (event: SubmitEvent): void => {
    event.preventDefault();
    const { status, note } = formValues(event.target as HTMLFormElement, ['status', 'note']);
    if (note.trim().length < 3) {
      this.error = this.locale.m.problemNote;
      return;
    }
    this.error = undefined;
    this.pending = { status: status === 'FAILED' ? 'FAILED' : 'COMPLETED', note: note.trim() };
  };

  private async confirm(entry: UnverifiablePayment): Promise<void> {
    const { transactionId, reference } = entry.payment;
    this.busy = true;
    try {
      const { payment } = resolvedPaymentSchema.parse(
        await ask({ kind: 'payments.resolve', transactionId, ...this.pending! }),
      );
      this.notice = fill(this.locale.m.resolvedNotice, { reference, status: payment.status });
      this.open(undefined);
      this.dispatchEvent(new CustomEvent('kassa-resolved', { detail: { payment }, bubbles: true, composed: true }));
      await this.load();
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private resolveForm(entry: UnverifiablePayment) {
    const { m, language } = this.locale;
    const { reference, amount, currencyCode } = entry.payment;
    if (this.pending)
      return html`<div class="stack" role="group" aria-label=${m.confirm}>
        <p>
          ${fill(m.confirmResolve, {
            reference,
            amount: formatMoney(amount, currencyCode, language),
            status: this.pending.status,
          })}
        </p>
        <p class="muted">${this.pending.note}</p>
        <div class="row">
          <button class="danger small" ?disabled=${this.busy} @click=${() => void this.confirm(entry)}>
            ${m.confirm}
          </button>
          <button class="secondary small" @click=${() => (this.pending = undefined)}>${m.cancel}</button>
        </div>
      </div>`;
    return html`<form aria-label=${fill(m.resolvePayment, { reference })} @submit=${this.onSubmit}>
      <label
        >${m.settleAs}
        <select name="status">
          <option value="COMPLETED">${m.settleCompleted}</option>
          <option value="FAILED">${m.settleFailed}</option>
        </select>
      </label>
      <label>${m.resolveNote} <textarea name="note" aria-required="true" maxlength="500" rows="2"></textarea></label>
      <div class="row">
        <button type="submit" class="small">${m.resolve}</button>
        <button type="button" class="secondary small" @click=${() => this.open(undefined)}>${m.cancel}</button>
      </div>
    </form>`;
  }

  private entry(entry: UnverifiablePayment) {
    const { m, language } = this.locale;
    const { payment, lastWebhook } = entry;
    const when = (iso: string) => new Date(iso).toLocaleString(language);
    const said = lastWebhook
      ? fill(m.lastWebhookSaid, {
          status: webhookWord(lastWebhook.event),
          time: when(lastWebhook.receivedAt),
        })
      : m.noWebhook;
    return html`<li class="card" data-transaction=${payment.transactionId}>
      <strong>${outsideText(payment.reference)}</strong> ·
      ${outsideText(formatMoney(payment.amount, payment.currencyCode, language))} ·
      <span class="status">${outsideText(payment.status)}</span>
      <dl>
        <dt>${m.transactionId}</dt>
        <dd class="mono">${outsideText(payment.transactionId)}</dd>
        <dt>${m.reason}</dt>
        <dd class="reason">${outsideText(entry.reason)}</dd>
        <dt>${m.since}</dt>
        <dd>${when(entry.since)}</dd>
        <dt>${m.lastWebhook}</dt>
        <dd class="webhook">${outsideText(said)}</dd>
      </dl>
      ${
        !this.session.can('payments:resolve')
          ? nothing
          : this.resolving === payment.transactionId
            ? this.resolveForm(entry)
            : html`<button
                class="small"
                aria-label=${fill(m.resolvePayment, { reference: payment.reference })}
                @click=${() => this.open(payment.transactionId)}
              >
                ${m.resolve}
              </button>`
      }
    </li>`;
  }

  override render() {
    const { m } = this.locale;
    const notice = this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing;
    const error = this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing;
    if (!this.entries.length) return html`${notice}${error}`;
    return html`<section aria-label=${m.unverifiableTitle}>
      <h2>${fill(m.unverifiableCount, { count: String(this.entries.length) })}</h2>
      <p class="muted">${m.unverifiableIntro}</p>
      ${notice}${error}
      <ul class="stack">
        ${this.entries.map((entry) => this.entry(entry))}
      </ul>
    </section>`;
  }
}

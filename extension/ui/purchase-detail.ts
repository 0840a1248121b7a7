import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { OperatorPurchase, PurchaseAudit, PurchaseDetail } from '../../schemas/onramp.ts';
import { formatMoney } from '../../widget/ui.ts';
import type { ApprovalRequestView, MoneyAnswer } from '../operator-messages.ts';
import './approval-card.ts';
import { ask, messageOf } from './client.ts';
import { formValues } from './form-values.ts';
import { outsideText } from './outside-text.ts';
import { paneHeader } from './pane-header.ts';
import { chainTransaction, tokenAmount } from './purchase-words.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

export interface PurchaseChangedDetail {
  /** The purchase as the proxy now has it. */
  purchase: OperatorPurchase;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-purchase-detail': KassaPurchaseDetail;
  }
  interface HTMLElementEventMap {
    'kassa-purchase-changed': CustomEvent<PurchaseChangedDetail>;
  }
}

/** The form open on a delayed purchase: the retry's confirmation, or the refund's note. */
type Acting = 'retry' | 'refund';

/**
 * One on-ramp purchase as the operator looks into it (`GET /api/onramp/purchases/{id}`): its state
 * and why it is late, the tokens, chain and wallet, the payment, the mint order, the chain
 * transaction with its explorer link, the dates, and the audit of what operators did. On a delayed
 * purchase: _Retry the mint_, after a confirmation (the proxy makes a new order only when the chain
 * shows no mint), and _Mark refunded_, with a note it requires, for a role with `purchases:act`. Both
 * are money (dual control): unless below the merchant's threshold they are sent for a second
 * person's approval, and the request is shown. The proxy's refusals are shown as it words them.
 *
 * @fires kassa-purchase-changed - An action changed the purchase (`PurchaseChangedDetail`).
 * @fires kassa-close - The Close button was pressed.
 */
@customElement('kassa-purchase-detail')
export class KassaPurchaseDetail extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      dl {
        margin: 0 0 0.5rem;
      }
      ol {
        padding-inline-start: 1.25rem;
        margin: 0;
      }
      textarea {
        inline-size: 100%;
        box-sizing: border-box;
      }
    `,
  ];

  /** The purchase's id (`pur_…`); the detail is read whenever it changes. */
  @property({ attribute: 'purchase-id' }) purchaseId = '';
  @state() private detail?: PurchaseDetail;
  @state() private acting?: Acting;
  @state() private error?: string;
  /** What is wrong with the refund's note, under it. */
  @state() private noteProblem?: string;
  @state() private notice?: string;
  @state() private busy = false;
  /** The last action sent for a second person's approval. */
  @state() private sent?: ApprovalRequestView;
  /** Counts reads: an answer for an id no longer shown is dropped. */
  private reads = 0;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('purchaseId')) {
      this.acting = this.notice = this.error = this.noteProblem = this.sent = undefined;
      void this.load();
    }
  }

  /** Reads the purchase again (with its list, or after an action). */
  async load(): Promise<void> {
    const read = ++this.reads;
    if (!this.purchaseId) return;
    try {
      const detail = await ask({ kind: 'purchases.get', id: this.purchaseId });
      if (read !== this.reads) return;
      this.detail = detail;
    } catch (error) {
      if (read !== this.reads) return;
      this.error = messageOf(error);
    }
  }

  private async act(action: () => Promise<MoneyAnswer<OperatorPurchase>>, notice: string): Promise<void> {
    this.busy = true;
    this.error = this.notice = this.sent = undefined;
    try {
      const answer = await action();
      this.acting = undefined;
      if ('sentForApproval' in answer) {
        this.sent = answer.sentForApproval;
        return;
      }
      const purchase = answer.done;
      this.notice = fill(notice, { state: purchase.state });
      this.dispatchEvent(
        new CustomEvent('kassa-purchase-changed', { detail: { purchase }, bubbles: true, composed: true }),
      );
      await this.load();
    } catch (error) {
      // The proxy's refusal, word for word (a missing permission in words).
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private readonly retry = () =>
    this.act(() => ask({ kind: 'purchases.retryMint', id: this.purchaseId }), this.locale.m.retried);

  private readonly refund = (event: SubmitEvent): void => {
    event.preventDefault();
    const { note } = formValues(event.target as HTMLFormElement, ['note']);
    this.noteProblem = note.trim().length < 3 ? this.locale.m.problemRefundNote : undefined;
    if (this.noteProblem) {
      this.renderRoot.querySelector<HTMLTextAreaElement>('textarea[name=note]')?.focus();
      return;
    }
    void this.act(
      () => ask({ kind: 'purchases.refund', id: this.purchaseId, note: note.trim() }),
      this.locale.m.refundedNotice,
    );
  };

  private open(acting?: Acting): void {
    this.acting = acting;
    this.error = this.notice = this.noteProblem = undefined;
  }

  /** The two actions on a delayed purchase, and the form of the one chosen. */
  private actions(detail: PurchaseDetail) {
    const { m, language } = this.locale;
    if (this.acting === 'retry')
      return html`<div class="stack" role="group" aria-label=${m.retryMint}>
        <p>
          ${fill(m.confirmRetry, { tokens: tokenAmount(detail.amount, detail.symbol, language), wallet: detail.wallet })}
        </p>
        <div class="row">
          <button class="small" ?disabled=${this.busy} @click=${() => void this.retry()}>${m.confirm}</button>
          <button class="secondary small" @click=${() => this.open()}>${m.cancel}</button>
        </div>
      </div>`;
    if (this.acting === 'refund')
      return html`<form aria-label=${m.markRefunded} @submit=${this.refund} novalidate>
        <label
          >${m.refundNote}
          <textarea
            name="note"
            required
            aria-required="true"
            aria-invalid=${this.noteProblem ? 'true' : 'false'}
            aria-describedby=${this.noteProblem ? 'note-problem' : nothing}
            maxlength="500"
            rows="2"
          ></textarea>
        </label>
        ${this.noteProblem ? html`<p class="error" id="note-problem">${this.noteProblem}</p>` : nothing}
        <div class="row">
          <button type="submit" class="danger small" ?disabled=${this.busy}>${m.markRefunded}</button>
          <button type="button" class="secondary small" @click=${() => this.open()}>${m.cancel}</button>
        </div>
      </form>`;
    return html`<div class="row">
      <button class="small" @click=${() => this.open('retry')}>${m.retryMint}</button>
      <button class="secondary small" @click=${() => this.open('refund')}>${m.markRefunded}</button>
    </div>`;
  }

  private audit(entries: PurchaseAudit[]) {
    const { m, language } = this.locale;
    if (!entries.length) return html`<p class="muted">${m.noAudit}</p>`;
    return html`<ol id="audit">
      ${entries.map(
        (entry) =>
          html`<li data-action=${entry.action}>
            <strong>${entry.action === 'refund' ? m.auditRefund : m.auditRetry}</strong>
            · ${new Date(entry.at).toLocaleString(language)} ·
            ${fill(m.auditMove, { previous: entry.previousState, state: entry.state })}
            ${entry.note ? html`<br /><span class="note">${outsideText(entry.note)}</span>` : nothing}
            ${entry.requestId ? html`<br /><span class="muted">${m.requestId} <span class="mono">${entry.requestId}</span></span>` : nothing}
          </li>`,
      )}
    </ol>`;
  }

  override render() {
    const detail = this.detail?.purchaseId === this.purchaseId ? this.detail : undefined;
    const { m, bridge, language } = this.locale;
    const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(language) : '—');
    const tokens = detail ? tokenAmount(detail.amount, detail.symbol, language) : m.purchaseHeading;
    return html`<section class="card" aria-label=${fill(m.purchaseLabel, { id: this.purchaseId })}>
      ${paneHeader(this, tokens, m.close)}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        this.sent
          ? html`<p role="status" class="ok" id="sent-for-approval">${m.sentForApproval}</p>
              <kassa-approval-card .approval=${this.sent}></kassa-approval-card>`
          : nothing
      }
      ${this.error ? html`<p role="alert" class="error" id="purchase-error">${this.error}</p>` : nothing}
      ${
        detail
          ? html`<dl>
                <dt>${m.state}</dt>
                <dd class="status" id="purchase-state">${detail.state}</dd>
                ${
                  detail.delayedReason
                    ? html`<dt>${m.delayedReason}</dt>
                        <dd id="delayed-reason">${outsideText(detail.delayedReason)}</dd>`
                    : nothing
                }
                <dt>${m.eventId}</dt>
                <dd class="mono">${detail.purchaseId}</dd>
                <dt>${bridge.network}</dt>
                <dd>${fill(bridge.chainNumber, { chain: detail.chainName, chainId: String(detail.chainId) })}</dd>
                <dt>${m.wallet}</dt>
                <dd class="mono">${detail.wallet}</dd>
                <dt>${m.payment}</dt>
                <dd>
                  ${formatMoney(detail.payment.amount, detail.payment.currencyCode, language)} ·
                  ${outsideText(detail.payment.status ?? '—')}
                </dd>
                <dt>${m.transactionId}</dt>
                <dd class="mono">${detail.transactionId ?? '—'}</dd>
                <dt>${m.checkout}</dt>
                <dd class="mono">${detail.checkoutId}</dd>
                <dt>${m.mintOrder}</dt>
                <dd id="mint-order">
                  ${
                    detail.order
                      ? html`<span class="mono">${detail.order.orderId}</span> ·
                          ${outsideText(detail.order.orderStatus ?? '—')} <br /><span class="mono muted"
                            >${detail.order.customerOrder}</span
                          >`
                      : '—'
                  }
                </dd>
                <dt>${m.orderAttempts}</dt>
                <dd>${detail.orderAttempts}</dd>
                <dt>${m.chainTransaction}</dt>
                <dd id="chain-transaction">${detail.txHash ? chainTransaction(detail, m) : '—'}</dd>
                <dt>${m.created}</dt>
                <dd>${when(detail.createdAt)}</dd>
                <dt>${m.paidAt}</dt>
                <dd>${when(detail.paidAt)}</dd>
                <dt>${m.delivered}</dt>
                <dd>${when(detail.deliveredAt)}</dd>
                <dt>${m.updated}</dt>
                <dd>${when(detail.updatedAt)}</dd>
              </dl>
              ${detail.state === 'delayed' && this.session.can('purchases:act') ? this.actions(detail) : nothing}
              <h3>${m.audit}</h3>
              ${this.audit(detail.audit)}`
          : this.error
            ? nothing
            : html`<p class="muted">${m.loading}</p>`
      }
    </section>`;
  }
}

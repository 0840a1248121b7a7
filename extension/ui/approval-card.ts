import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { ChainEntry } from '../../schemas/reforge.ts';
import type { ApprovalRequestView } from '../operator-messages.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { outsideText } from './outside-text.ts';
import { paneHeader } from './pane-header.ts';
import { refusalText } from './refusal.ts';
import { relativeTime } from './relative-time.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

export interface ApprovalChangedDetail {
  /** The request as the proxy now has it. */
  approval: ApprovalRequestView;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-approval-card': KassaApprovalCard;
  }
  interface HTMLElementEventMap {
    'kassa-approval-changed': CustomEvent<ApprovalChangedDetail>;
  }
}

/** The proxy's chain listing, read once per page: a request names its chain by id. */
let chains: Promise<ChainEntry[]> | undefined;

type Summary = ApprovalRequestView['summary'];
const text = (value: Summary[string] | undefined) => (value === null || value === undefined ? '' : String(value));

/**
 * One approval request of dual control: what it does (the amount and coin, the chain, the wallet, the
 * order or purchase), who asked and when, until when it waits, and where it stands. The person who
 * may decide it (`canDecide`: someone else's, and their role has its permission) approves it or
 * rejects it with a reason; the person who asked sees that it waits for a second person, and may
 * cancel it. Shown in the Approvals view, and where a money action was just sent for approval.
 *
 * @fires kassa-approval-changed - It was approved, rejected or cancelled (`ApprovalChangedDetail`).
 * @fires kassa-close - The Close button was pressed (`closable` only).
 */
@customElement('kassa-approval-card')
export class KassaApprovalCard extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      textarea {
        inline-size: 100%;
        box-sizing: border-box;
      }
    `,
  ];

  /** The request, as the proxy answered it. */
  @property({ attribute: false }) approval?: ApprovalRequestView;
  /** Shows a Close button (as a detail pane). */
  @property({ type: Boolean }) closable = false;
  @state() private chainList: ChainEntry[] = [];
  @state() private rejecting = false;
  @state() private reasonProblem?: string;
  @state() private error?: string;
  @state() private notice?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  override connectedCallback(): void {
    super.connectedCallback();
    chains ??= ask({ kind: 'chains.list' }).catch(() => []);
    void chains.then((list) => (this.chainList = list));
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('approval') as ApprovalRequestView | undefined;
    if (changed.has('approval') && before?.approvalId !== this.approval?.approvalId) this.rejecting = this.busy = false;
  }

  private async decide(
    request: () => Promise<ApprovalRequestView>,
    notice: (approval: ApprovalRequestView) => string,
  ): Promise<void> {
    this.busy = true;
    this.error = this.notice = undefined;
    try {
      const approval = await request();
      this.notice = notice(approval);
      this.rejecting = false;
      this.approval = approval;
      this.dispatchEvent(
        new CustomEvent('kassa-approval-changed', { detail: { approval }, bubbles: true, composed: true }),
      );
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private approve(id: string) {
    const { people } = this.locale;
    return this.decide(
      () => ask({ kind: 'approvals.approve', id }),
      (approval) =>
        approval.state === 'failed'
          ? fill(people.approvedFailed, { error: text(approval.result?.error) || people.approvalStates.failed })
          : people.approvedDone,
    );
  }

  private readonly reject = (event: SubmitEvent): void => {
    event.preventDefault();
    const { reason } = formValues(event.target as HTMLFormElement, ['reason']);
    this.reasonProblem = reason.trim().length < 3 ? this.locale.people.problemReason : undefined;
    if (this.reasonProblem) {
      this.renderRoot.querySelector<HTMLTextAreaElement>('textarea[name=reason]')?.focus();
      return;
    }
    const id = this.approval!.approvalId;
    void this.decide(
      () => ask({ kind: 'approvals.reject', id, reason: reason.trim() }),
      () => this.locale.people.rejectedNotice,
    );
  };

  private chainName(summary: Summary): string {
    if (summary.chain) return text(summary.chain);
    const id = Number(summary.chainId);
    return this.chainList.find((chain) => chain.chainId === id)?.name ?? text(summary.chainId);
  }

  /** What the request does, line by line, as its kind words it. */
  private summary(approval: ApprovalRequestView) {
    const { m, people } = this.locale;
    const { summary } = approval;
    const coin = text(summary.coin);
    const moved = (from: Summary[string] | undefined, to: Summary[string] | undefined) =>
      to === null || to === undefined ? text(from) : fill(people.change, { from: text(from), to: text(to) });
    const row = (label: string, value: unknown) =>
      html`<dt>${label}</dt>
        <dd>${value}</dd>`;
    const purchase = approval.kind.startsWith('purchase.');
    return html`
      ${row(m.amount, outsideText(`${purchase ? text(summary.tokens) : moved(summary.amount, summary.newAmount)} ${coin}`))}
      ${summary.newOrderStatus ? row(m.status, outsideText(moved(summary.orderStatus, summary.newOrderStatus))) : nothing}
      ${row(m.chain, outsideText(this.chainName(summary)))}
      ${summary.wallet ? row(m.wallet, html`<span class="mono">${text(summary.wallet)}</span>`) : nothing}
      ${purchase ? row(people.purchase, html`<span class="mono">${text(summary.purchaseId)}</span>`) : nothing}
      ${purchase && summary.payment ? row(m.payment, outsideText(text(summary.payment))) : nothing}
      ${approval.kind === 'order.update' ? row(people.order, html`<span class="mono">${text(summary.orderId)}</span>`) : nothing}
      ${summary.customerOrder ? row(m.customerOrder, outsideText(text(summary.customerOrder))) : nothing}
      ${summary.customerName ? row(m.customerName, outsideText(text(summary.customerName))) : nothing}
    `;
  }

  /** Approve, or reject with a reason; or, for the person who asked, cancel. */
  private actions(approval: ApprovalRequestView) {
    const { m, people } = this.locale;
    const mine = approval.requestedBy.operatorId === this.session.session?.operator?.operatorId;
    if (approval.state !== 'pending') return nothing;
    if (mine)
      return html`<p id="waiting">${people.waitingSecond}</p>
        <button
          class="secondary small"
          ?disabled=${this.busy}
          @click=${() =>
            void this.decide(
              () => ask({ kind: 'approvals.cancel', id: approval.approvalId }),
              () => people.cancelledNotice,
            )}
        >
          ${people.cancelRequest}
        </button>`;
    if (!approval.canDecide) return html`<p class="muted">${people.waitingSecond}</p>`;
    if (this.rejecting)
      return html`<form aria-label=${m.reject} novalidate @submit=${this.reject}>
        <label
          >${people.rejectReason}
          <textarea
            name="reason"
            rows="2"
            maxlength="500"
            required
            aria-required="true"
            aria-invalid=${this.reasonProblem ? 'true' : 'false'}
            aria-describedby=${this.reasonProblem ? 'reason-problem' : nothing}
          ></textarea>
        </label>
        ${this.reasonProblem ? html`<p class="error" id="reason-problem">${this.reasonProblem}</p>` : nothing}
        <div class="row">
          <button type="submit" class="danger small" ?disabled=${this.busy}>${people.rejectWithReason}</button>
          <button type="button" class="secondary small" @click=${() => (this.rejecting = false)}>${m.cancel}</button>
        </div>
      </form>`;
    return html`<div class="row">
      <button class="small" ?disabled=${this.busy} @click=${() => void this.approve(approval.approvalId)}>
        ${m.approve}
      </button>
      <button class="secondary small" @click=${() => (this.rejecting = true)}>${m.reject}</button>
    </div>`;
  }

  override render() {
    const approval = this.approval;
    if (!approval) return nothing;
    const { m, people, language } = this.locale;
    const what = people.approvalKinds[approval.kind];
    const when = (iso: string) => new Date(iso).toLocaleString(language, { dateStyle: 'short', timeStyle: 'short' });
    const person = (who: ApprovalRequestView['requestedBy']) =>
      outsideText(fill(people.personRole, { name: who.name, role: people.roles[who.role] }));
    const result = Object.entries(approval.result ?? {}).map(([key, value]) => `${key}: ${text(value)}`);
    return html`<section
      class="card"
      aria-label=${fill(people.requestLabel, { what })}
      data-approval=${approval.approvalId}
    >
      ${this.closable ? paneHeader(this, what, m.close) : html`<h3>${what}</h3>`}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error" id="approval-error">${this.error}</p>` : nothing}
      <dl>
        ${this.summary(approval)}
        <dt>${m.askedBy}</dt>
        <dd>${person(approval.requestedBy)}</dd>
        <dt>${people.asked}</dt>
        <dd>${when(approval.requestedAt)}</dd>
        <dt>${m.state}</dt>
        <dd class="status" id="approval-state">${people.approvalStates[approval.state]}</dd>
        ${
          approval.state === 'pending'
            ? html`<dt>${people.expires}</dt>
                <dd>${relativeTime(Date.parse(approval.expiresAt) - Date.now(), language)}</dd>`
            : nothing
        }
        ${
          approval.decidedBy
            ? html`<dt>${people.decidedBy}</dt>
                <dd>${person(approval.decidedBy)}</dd>`
            : nothing
        }
        ${
          approval.reason
            ? html`<dt>${m.reason}</dt>
                <dd>${outsideText(approval.reason)}</dd>`
            : nothing
        }
        ${
          result.length
            ? html`<dt>${people.result}</dt>
                <dd class="mono" id="approval-result">${outsideText(result.join(', '))}</dd>`
            : nothing
        }
      </dl>
      ${this.actions(approval)}
    </section>`;
  }
}

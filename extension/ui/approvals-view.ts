import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { APPROVAL_STATES } from '../../schemas/operators.ts';
import type { ApprovalRequestView } from '../operator-messages.ts';
import { ask } from './client.ts';
import './approval-card.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { relativeTime } from './relative-time.ts';
import { fittedTable, pageStyles, rowLinks } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

type StateFilter = (typeof APPROVAL_STATES)[number] | '';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-approvals-view': KassaApprovalsView;
  }
}

/**
 * Dual control's requests (`GET /api/approvals`), the pending ones first: what each does, for how
 * much, who asked and until when it waits. A row opens the request, where the person who may decide
 * it approves or rejects it with a reason, and the person who asked may cancel it. Reading the
 * pending list also counts the toolbar badge again. Fits a 360 px side panel without sideways
 * scrolling.
 */
@customElement('kassa-approvals-view')
export class KassaApprovalsView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    css`
      th:nth-child(2) {
        inline-size: 26%;
      }
      th:nth-child(3) {
        inline-size: 28%;
      }
    `,
  ];

  @state() private nextCursor: string | null = null;
  @state() private selected?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly list = new ListController<ApprovalRequestView, StateFilter>(this, {
    filter: 'pending',
    load: async (chosen) => {
      const page = await ask({
        kind: 'approvals.list',
        state: chosen || undefined,
      });
      this.nextCursor = page.nextCursor;
      return page.approvals;
    },
    describe: (error) => refusalText(error, this.locale),
  });

  private async more(): Promise<void> {
    if (!this.nextCursor) return;
    this.busy = true;
    try {
      const page = await ask({
        kind: 'approvals.list',
        state: this.list.filter || undefined,
        cursor: this.nextCursor,
      });
      this.list.items = [...this.list.items, ...page.approvals];
      this.nextCursor = page.nextCursor;
    } finally {
      this.busy = false;
    }
  }

  /** A decision in the open request: the list follows. */
  private readonly changed = (event: CustomEvent<{ approval: ApprovalRequestView }>): void => {
    const { approval } = event.detail;
    this.list.items = this.list.items.map((each) => (each.approvalId === approval.approvalId ? approval : each));
  };

  private row(approval: ApprovalRequestView) {
    const { people, language } = this.locale;
    const what = people.approvalKinds[approval.kind];
    const { summary } = approval;
    const amount = approval.kind.startsWith('purchase.') ? summary.tokens : (summary.newAmount ?? summary.amount);
    const waits = approval.state === 'pending';
    const target = String(summary.customerOrder ?? summary.purchaseId ?? summary.orderId ?? '');
    return html`<tr
      data-approval=${approval.approvalId}
      aria-selected=${this.selected === approval.approvalId ? 'true' : 'false'}
    >
      <td>
        <button aria-label=${`${what}: ${target}`} @click=${() => (this.selected = approval.approvalId)}>
          ${what}
        </button>
        <br /><span class="muted">${outsideText(target)}</span>
      </td>
      <td>${outsideText(`${String(amount ?? '')} ${String(summary.coin ?? '')}`)}</td>
      <td>
        ${outsideText(approval.requestedBy.name)}<br /><span class="muted"
          >${relativeTime(Date.parse(approval.requestedAt) - Date.now(), language, 'short')}</span
        >
      </td>
      <td>
        <span class="status">${people.approvalStates[approval.state]}</span>
        ${
          waits
            ? html`<br /><span class="muted"
                  >${people.expires}
                  ${relativeTime(Date.parse(approval.expiresAt) - Date.now(), language, 'short')}</span
                >`
            : nothing
        }
      </td>
    </tr>`;
  }

  override render() {
    const { m, people } = this.locale;
    const selected = this.list.items.find((approval) => approval.approvalId === this.selected);
    return html`
      <kassa-filter-bar
        label=${m.state}
        filter-label=${m.filterByState}
        .choices=${APPROVAL_STATES}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          void this.list.setFilter(event.detail.value as StateFilter)}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      ${
        selected
          ? html`<kassa-approval-card
              closable
              .approval=${selected}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-approval-changed=${this.changed}
            ></kassa-approval-card>`
          : nothing
      }
      ${this.list.render({
        label: people.approvalRequests,
        loading: m.loading,
        headings: [people.what, m.amount, m.askedBy, m.state],
        row: (approval) => this.row(approval),
        empty: (chosen) =>
          chosen ? fill(people.noRequestsWith, { state: people.approvalStates[chosen] }) : people.noRequests,
      })}
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

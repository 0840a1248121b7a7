import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { AuditRecordView } from '../../schemas/audit.ts';
import type { OperatorView } from '../../schemas/operators.ts';
import './audit-record.ts';
import { ask } from './client.ts';
import { dayOf, dayStart } from './day-field.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { saveFile } from './save-file.ts';
import { fittedTable, pageStyles, rowLinks } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

/** The trail's actions by their first word, as the proxy filters them (`approval` is every approval.*). */
const ACTIONS = [
  'signin',
  'signout',
  'device',
  'session',
  'operator',
  'token',
  'passkey',
  'approval',
  'order',
  'purchase',
  'payment',
  'payments',
  'event',
  'audit',
] as const;

interface AuditFilter {
  operatorId?: string;
  action?: string;
  from?: string;
  to?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-audit-view': KassaAuditView;
  }
}

/**
 * The audit trail for admins (`audit:read`), newest first: who did what, when, on what; filtered by
 * person, action and days, _Load more_ for older records, and exported whole (or between the days
 * chosen) as NDJSON or CSV, the file the proxy writes (an export is itself audited). A row opens the
 * record. Fits a 360 px side panel without sideways scrolling.
 */
@customElement('kassa-audit-view')
export class KassaAuditView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    css`
      th:nth-child(1) {
        inline-size: 28%;
      }
      th:nth-child(2) {
        inline-size: 30%;
      }
    `,
  ];

  @state() private nextCursor: string | null = null;
  @state() private selected?: number;
  @state() private people: OperatorView[] = [];
  @state() private notice?: string;
  @state() private error?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly list = new ListController<AuditRecordView, AuditFilter>(this, {
    filter: {},
    load: async (filter) => {
      const page = await ask({
        kind: 'audit.list',
        ...filter,
      });
      this.nextCursor = page.nextCursor;
      return page.records;
    },
    describe: (error) => refusalText(error, this.locale),
  });

  override connectedCallback(): void {
    super.connectedCallback();
    ask({ kind: 'team.list' }).then(
      ({ operators }) => (this.people = operators),
      () => undefined,
    );
  }

  private readonly search = (event: SubmitEvent): void => {
    event.preventDefault();
    const { operatorId, action, from, to } = formValues(event.target as HTMLFormElement, [
      'operatorId',
      'action',
      'from',
      'to',
    ]);
    const filter: AuditFilter = {
      ...(operatorId ? { operatorId } : {}),
      ...(action ? { action } : {}),
      ...(from ? { from: dayStart(from) } : {}),
      ...(to ? { to: dayStart(to, 1) } : {}),
    };
    this.selected = undefined;
    void this.list.setFilter(filter);
  };

  private async more(): Promise<void> {
    if (!this.nextCursor) return;
    this.busy = true;
    try {
      const page = await ask({
        kind: 'audit.list',
        ...this.list.filter,
        cursor: this.nextCursor,
      });
      this.list.items = [...this.list.items, ...page.records];
      this.nextCursor = page.nextCursor;
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private async export(format: 'ndjson' | 'csv'): Promise<void> {
    this.busy = true;
    this.notice = this.error = undefined;
    try {
      const { from, to } = this.list.filter;
      const file = await ask({ kind: 'audit.export', format, from, to });
      saveFile(this.renderRoot, file);
      this.notice = fill(this.locale.m.csvDownloaded, { file: file.filename });
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private row(record: AuditRecordView) {
    const { people, language } = this.locale;
    const { actor } = record;
    return html`<tr data-seq=${record.seq} aria-selected=${this.selected === record.seq ? 'true' : 'false'}>
      <td>${new Date(record.at).toLocaleString(language, { dateStyle: 'short', timeStyle: 'medium' })}</td>
      <td>
        ${outsideText(actor.name)}${actor.role ? html`<br /><span class="muted">${people.roles[actor.role]}</span>` : nothing}
      </td>
      <td>
        <button
          aria-label=${fill(people.recordLabel, { seq: String(record.seq), action: record.action })}
          @click=${() => (this.selected = record.seq)}
        >
          ${record.action}
        </button>
        ${record.target ? html`<br /><span class="muted">${outsideText(record.target.id)}</span>` : nothing}
      </td>
    </tr>`;
  }

  private filters() {
    const { m, people } = this.locale;
    const { operatorId, action, from, to } = this.list.filter;
    return html`<form aria-label=${people.auditFilters} @submit=${this.search}>
      <div class="row">
        <label
          >${people.person}
          <select name="operatorId">
            <option value="">${people.everyone}</option>
            ${this.people.map((person) => html`<option value=${person.operatorId} ?selected=${person.operatorId === operatorId}>${person.name}</option>`)}
          </select>
        </label>
        <label
          >${people.action}
          <select name="action">
            <option value="">${m.all}</option>
            ${ACTIONS.map((each) => html`<option ?selected=${each === action}>${each}</option>`)}
          </select>
        </label>
      </div>
      <div class="row">
        <label>${m.fromDate} <input type="date" name="from" .value=${dayOf(from)} /></label>
        <label>${m.toDate} <input type="date" name="to" .value=${dayOf(to, -1)} /></label>
      </div>
      <button type="submit" class="small">${people.apply}</button>
    </form>`;
  }

  override render() {
    const { m, people } = this.locale;
    const selected = this.list.items.find((record) => record.seq === this.selected);
    return html`
      ${this.filters()}
      <div class="row">
        <button class="secondary small" @click=${() => void this.list.refresh()}>${m.refresh}</button>
        <button class="secondary small" ?disabled=${this.busy} @click=${() => void this.export('ndjson')}>
          ${people.exportNdjson}
        </button>
        <button class="secondary small" ?disabled=${this.busy} @click=${() => void this.export('csv')}>
          ${people.exportCsv}
        </button>
      </div>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${
        selected
          ? html`<kassa-audit-record
              .record=${selected}
              @kassa-close=${() => (this.selected = undefined)}
            ></kassa-audit-record>`
          : nothing
      }
      ${this.list.render({
        label: people.auditTrail,
        loading: m.loading,
        headings: [m.attemptWhen, people.who, people.action],
        row: (record) => this.row(record),
        empty: () => people.noRecords,
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

import { css, html, LitElement, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { AuditRecordView } from '../../schemas/audit.ts';
import { outsideText } from './outside-text.ts';
import { paneHeader } from './pane-header.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-audit-record': KassaAuditRecord;
  }
}

/**
 * One record of the audit trail: when, who (their role then, and through what: the sign-in page,
 * the extension, an API token…), what and on what, from where (the request, the address, the
 * browser), the state before and after, and its place in the hash chain.
 *
 * @fires kassa-close - The Close button was pressed.
 */
@customElement('kassa-audit-record')
export class KassaAuditRecord extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      pre {
        max-block-size: 12rem;
        overflow: auto;
        font-size: 0.75rem;
        white-space: pre-wrap;
        word-break: break-all;
        margin: 0;
      }
    `,
  ];

  /** The record, as the list has it. */
  @property({ attribute: false }) record?: AuditRecordView;
  private readonly locale = new UiLocale(this);

  /** A state before or after, as JSON (a region to scroll, reachable by keyboard). */
  private state(id: string, label: string, value: unknown) {
    if (value === null || value === undefined) return nothing;
    return html`<h3 id=${id}>${label}</h3>
      <pre class="mono" tabindex="0" role="region" aria-labelledby=${id}>${JSON.stringify(value, null, 2)}</pre>`;
  }

  override render() {
    const record = this.record;
    if (!record) return nothing;
    const { m, people, language } = this.locale;
    const { actor } = record;
    return html`<section
      class="card"
      aria-label=${fill(people.recordLabel, { seq: String(record.seq), action: record.action })}
    >
      ${paneHeader(this, record.action, m.close)}
      <dl>
        <dt>${people.who}</dt>
        <dd>
          ${outsideText(actor.role ? fill(people.personRole, { name: actor.name, role: people.roles[actor.role] }) : actor.name)}
        </dd>
        <dt>${people.via}</dt>
        <dd>${people.viaWords[actor.via]}</dd>
        <dt>${m.attemptWhen}</dt>
        <dd>${new Date(record.at).toLocaleString(language)}</dd>
        ${
          record.target
            ? html`<dt>${people.target}</dt>
                <dd class="mono">${outsideText(`${record.target.type} ${record.target.id}`)}</dd>`
            : nothing
        }
        ${
          record.requestId
            ? html`<dt>${m.requestId}</dt>
                <dd class="mono">${record.requestId}</dd>`
            : nothing
        }
        ${
          record.ip
            ? html`<dt>${people.address}</dt>
                <dd class="mono">${outsideText(record.ip)}</dd>`
            : nothing
        }
        ${
          record.userAgent
            ? html`<dt>${people.browser}</dt>
                <dd>${outsideText(record.userAgent)}</dd>`
            : nothing
        }
        <dt>${m.sequence}</dt>
        <dd>${record.seq}</dd>
        <dt>${people.hash}</dt>
        <dd class="mono">${record.hash}</dd>
      </dl>
      ${this.state(`before-${record.seq}`, people.before, record.before)}
      ${this.state(`after-${record.seq}`, people.after, record.after)}
    </section>`;
  }
}

import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { EventDetail } from '../../schemas/events.ts';
import { ask, messageOf } from './client.ts';
import { pageStyles } from './styles.ts';

export interface RedeliveredDetail {
  id: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-event-detail': KassaEventDetail;
  }
  interface HTMLElementEventMap {
    'kassa-redelivered': CustomEvent<RedeliveredDetail>;
    'kassa-close': CustomEvent<undefined>;
  }
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * One event of the proxy's outbox: its state, every delivery attempt (when, how long, the
 * receiver's status code or the error), the payload as sent, and a Redeliver button.
 *
 * @fires kassa-redelivered - The event was queued again (`RedeliveredDetail`).
 * @fires kassa-close - The Close button was pressed.
 *
 * @csspart payload - The payload, as JSON.
 */
@customElement('kassa-event-detail')
export class KassaEventDetail extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      pre {
        max-block-size: 16rem;
        overflow: auto;
        font-size: 0.75rem;
        white-space: pre-wrap;
        word-break: break-all;
      }
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.125rem 0.75rem;
        margin: 0 0 0.5rem;
      }
      dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
    `,
  ];

  /** The event's id (its `webhook-id`); the detail is read whenever it changes. */
  @property({ attribute: 'event-id' }) eventId = '';
  @state() private detail?: EventDetail;
  @state() private error?: string;
  @state() private notice?: string;
  @state() private busy = false;
  /** Counts reads: an answer for an id no longer shown is dropped. */
  private reads = 0;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('eventId')) void this.load();
  }

  /** Reads the event again (after a redelivery elsewhere, say). */
  async load(): Promise<void> {
    const read = ++this.reads;
    if (!this.eventId) return;
    try {
      const detail = await ask<EventDetail>({ kind: 'events.get', id: this.eventId });
      if (read !== this.reads) return;
      this.detail = detail;
      this.error = undefined;
    } catch (error) {
      if (read !== this.reads) return;
      this.error = messageOf(error);
    }
  }

  private async redeliver(): Promise<void> {
    this.busy = true;
    try {
      await ask({ kind: 'events.redeliver', id: this.eventId });
      this.notice = 'Queued for delivery now.';
      this.error = undefined;
      this.dispatchEvent(
        new CustomEvent('kassa-redelivered', { detail: { id: this.eventId }, bubbles: true, composed: true }),
      );
      await this.load();
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
    }
  }

  private attempts(detail: EventDetail) {
    if (!detail.attemptLog.length) return html`<p class="muted">No attempt yet.</p>`;
    return html`<table aria-label="Attempts">
      <thead>
        <tr>
          <th>When</th>
          <th>Took</th>
          <th>Answer</th>
        </tr>
      </thead>
      <tbody>
        ${detail.attemptLog.map(
          (attempt) =>
            html`<tr>
              <td>${when(attempt.at)}</td>
              <td>${Math.round(attempt.durationMs)} ms</td>
              <td class=${attempt.statusCode !== null && attempt.statusCode < 300 ? 'ok' : 'error'}>
                ${attempt.statusCode ?? ''}${attempt.error ? html` ${attempt.error}` : nothing}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }

  override render() {
    const detail = this.detail?.id === this.eventId ? this.detail : undefined;
    return html`<section class="card" aria-label="Event ${this.eventId}">
      <div class="row">
        <h3>${detail?.type ?? 'Event'}</h3>
        <button
          class="secondary small"
          @click=${() => this.dispatchEvent(new CustomEvent('kassa-close', { bubbles: true, composed: true }))}
        >
          Close
        </button>
      </div>
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        detail
          ? html`<dl>
                <dt>Id</dt>
                <dd class="mono">${detail.id}</dd>
                <dt>Status</dt>
                <dd class="status">${detail.status}</dd>
                <dt>Sequence</dt>
                <dd>${detail.sequence}</dd>
                <dt>Created</dt>
                <dd>${when(detail.createdAt)}</dd>
                <dt>Next attempt</dt>
                <dd>${when(detail.nextAttemptAt)}</dd>
                <dt>Delivered</dt>
                <dd>${when(detail.deliveredAt)}</dd>
              </dl>
              <button class="small" ?disabled=${this.busy} @click=${() => void this.redeliver()}>Redeliver</button>
              <h3>Attempts (${detail.attempts})</h3>
              ${this.attempts(detail)}
              <h3>Payload</h3>
              <pre part="payload" class="mono">${JSON.stringify(detail.payload, null, 2)}</pre>`
          : this.error
            ? nothing
            : html`<p class="muted">Loading…</p>`
      }
    </section>`;
  }
}

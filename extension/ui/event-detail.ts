import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { EventDetail } from '../../schemas/events.ts';
import { ask, messageOf } from './client.ts';
import { paneHeader } from './pane-header.ts';
import { pageStyles } from './styles.ts';
import { SessionController } from './session-controller.ts';
import { fill, UiLocale } from './ui-locale.ts';

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

const when = (iso: string | null, language: string) => (iso ? new Date(iso).toLocaleString(language) : '—');

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
        margin: 0 0 0.5rem;
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
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('eventId')) void this.load();
  }

  /** Reads the event again (after a redelivery elsewhere, say). */
  async load(): Promise<void> {
    const read = ++this.reads;
    if (!this.eventId) return;
    try {
      const detail = await ask({ kind: 'events.get', id: this.eventId });
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
      this.notice = this.locale.m.queuedNow;
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
    const { m, language } = this.locale;
    if (!detail.attemptLog.length) return html`<p class="muted">${m.noAttempt}</p>`;
    return html`<table aria-label=${m.attempts}>
      <thead>
        <tr>
          <th>${m.attemptWhen}</th>
          <th>${m.attemptTook}</th>
          <th>${m.attemptAnswer}</th>
        </tr>
      </thead>
      <tbody>
        ${detail.attemptLog.map(
          (attempt) =>
            html`<tr>
              <td>${when(attempt.at, language)}</td>
              <td>${Math.round(attempt.durationMs)} ms</td>
              <td class=${attempt.statusCode !== null && attempt.statusCode < 300 ? 'ok' : 'error'}>
                ${attempt.statusCode ?? ''}${attempt.error ? html` ${attempt.error}` : nothing}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }

  // The payload is a focusable region: a keyboard can then scroll a long one.
  override render() {
    const detail = this.detail?.id === this.eventId ? this.detail : undefined;
    const { m, language } = this.locale;
    return html`<section class="card" aria-label=${fill(m.eventLabel, { id: this.eventId })}>
      ${paneHeader(this, detail?.type ?? m.eventHeading, m.close)}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        detail
          ? html`<dl>
                <dt>${m.eventId}</dt>
                <dd class="mono">${detail.id}</dd>
                <dt>${m.status}</dt>
                <dd class="status">${detail.status}</dd>
                <dt>${m.sequence}</dt>
                <dd>${detail.sequence}</dd>
                <dt>${m.created}</dt>
                <dd>${when(detail.createdAt, language)}</dd>
                <dt>${m.nextAttempt}</dt>
                <dd>${when(detail.nextAttemptAt, language)}</dd>
                <dt>${m.delivered}</dt>
                <dd>${when(detail.deliveredAt, language)}</dd>
              </dl>
              ${
                this.session.can('events:redeliver')
                  ? html`<button class="small" ?disabled=${this.busy} @click=${() => void this.redeliver()}>
                      ${m.redeliver}
                    </button>`
                  : nothing
              }
              <h3>${fill(m.attemptsCount, { count: String(detail.attempts) })}</h3>
              ${this.attempts(detail)}
              <h3 id="payload-heading">${m.payload}</h3>
              <pre part="payload" class="mono" tabindex="0" role="region" aria-labelledby="payload-heading">
${JSON.stringify(detail.payload, null, 2)}</pre>`
          : this.error
            ? nothing
            : html`<p class="muted">${m.loading}</p>`
      }
    </section>`;
  }
}

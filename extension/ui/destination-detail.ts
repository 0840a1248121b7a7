import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type DeliveryView,
  type DestinationView,
} from '../../schemas/event-destinations.ts';
import { breakable } from './breakable.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { outsideText } from './outside-text.ts';
import { paneHeader } from './pane-header.ts';
import { PagedReads } from './paged-reads.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import './shown-once.ts';
import { fittedTable, pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

export interface DestinationChangedDetail {
  id: string;
  /** Set when the destination was removed: what to tell, since its pane goes with it. */
  removed?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-destination-detail': KassaDestinationDetail;
  }
  interface HTMLElementEventMap {
    'kassa-destination-changed': CustomEvent<DestinationChangedDetail>;
  }
}

/** The rotation's overlaps offered, in seconds (24 hours first, the proxy's default). */
const OVERLAPS = [86_400, 3_600, 604_800, 0] as const;

/**
 * One event destination: its address, event types, state and backlog; for an admin
 * (`destinations:manage`), _Send test event_ (what the receiver answered), _Disable_ / _Enable_,
 * _Rotate secret_ with the old one's overlap (the new secret shown once), _Skip waiting events_ and
 * _Remove_, both after a confirmation; and its delivery log, newest first, filtered by status. The
 * proxy's KASSA_EVENTS_URL destination is changed in its settings: it offers the test only, its
 * attempts being in the events list.
 *
 * @fires kassa-destination-changed - The destination was changed or removed (`DestinationChangedDetail`).
 * @fires kassa-close - The Close button was pressed.
 */
@customElement('kassa-destination-detail')
export class KassaDestinationDetail extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    css`
      th:nth-child(2) {
        inline-size: 24%;
      }
      th:nth-child(3),
      th:nth-child(4) {
        inline-size: 22%;
      }
    `,
  ];

  /** The destination, as the list has it; its log is read whenever it is another one. */
  @property({ attribute: false }) destination?: DestinationView;
  @state() private status: DeliveryStatus | '' = '';
  @state() private confirming?: 'skip' | 'remove';
  @state() private secret?: string;
  @state() private notice?: string;
  @state() private error?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  /** The delivery log of an API destination, newest first, a page at a time, with the status chosen. */
  private readonly deliveries = new PagedReads<DeliveryView>(this, {
    read: (cursor) => {
      const destination = this.destination;
      if (destination?.kind !== 'api') return undefined;
      return ask({
        kind: 'destinations.deliveries',
        id: destination.id,
        status: this.status || undefined,
        cursor,
      }).then((page) => ({ items: page.deliveries, nextCursor: page.nextCursor }));
    },
    failed: (error) => (this.error = refusalText(error, this.locale)),
  });

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('destination') as DestinationView | undefined;
    if (changed.has('destination') && before?.id !== this.destination?.id) {
      this.confirming = this.notice = this.error = this.secret = undefined;
      this.status = '';
      this.deliveries.clear();
      void this.deliveries.load();
    }
  }

  /** An action on the destination: its notice, the list told, the log read again. */
  private async act<T>(action: () => Promise<T>, notice: (value: T) => string, removes = false): Promise<void> {
    const id = this.destination!.id;
    this.busy = true;
    this.error = this.notice = undefined;
    try {
      const value = await action();
      this.notice = notice(value);
      this.confirming = undefined;
      const detail: DestinationChangedDetail = { id, ...(removes ? { removed: this.notice } : {}) };
      this.dispatchEvent(new CustomEvent('kassa-destination-changed', { detail, bubbles: true, composed: true }));
      if (!removes) await this.deliveries.load();
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private sendTest(destination: DestinationView): Promise<void> {
    const { integrations: i } = this.locale;
    return this.act(
      () => ask({ kind: 'destinations.test', id: destination.id }),
      ({ eventId, statusCode, durationMs, error }) =>
        fill(statusCode !== null && statusCode < 300 ? i.testAnswered : i.testFailed, {
          id: eventId,
          url: destination.url,
          status: String(statusCode ?? ''),
          error: error ?? `HTTP ${statusCode}`,
          ms: String(Math.round(durationMs)),
        }),
    );
  }

  private setEnabled(destination: DestinationView, enabled: boolean): Promise<void> {
    const { integrations: i } = this.locale;
    return this.act(
      () => ask({ kind: 'destinations.setEnabled', id: destination.id, enabled }),
      () => fill(enabled ? i.enabledNotice : i.disabledNotice, { url: destination.url }),
    );
  }

  private readonly rotate = (event: SubmitEvent): void => {
    event.preventDefault();
    const destination = this.destination!;
    const expiresInSeconds = Number(formValues(event.target as HTMLFormElement, ['overlap']).overlap);
    const { integrations: i, language } = this.locale;
    void this.act(
      async () => {
        const rotated = await ask({ kind: 'destinations.rotateSecret', id: destination.id, expiresInSeconds });
        this.secret = rotated.secret;
        return rotated.destination;
      },
      ({ previousSecretExpiresAt }) =>
        previousSecretExpiresAt
          ? fill(i.rotatedOverlap, {
              url: destination.url,
              time: new Date(previousSecretExpiresAt).toLocaleString(language),
            })
          : fill(i.rotatedNow, { url: destination.url }),
    );
  };

  private confirmation(destination: DestinationView) {
    const { m, integrations: i } = this.locale;
    const skip = this.confirming === 'skip';
    const words = fill(skip ? i.confirmSkip : i.confirmRemove, {
      url: destination.url,
      count: String(destination.pending),
    });
    const confirm = skip
      ? () =>
          this.act(
            () => ask({ kind: 'destinations.skip', id: destination.id }),
            ({ skipped }) => fill(i.skipped, { url: destination.url, count: String(skipped) }),
          )
      : () =>
          this.act(
            () => ask({ kind: 'destinations.remove', id: destination.id }),
            () => fill(i.removed, { url: destination.url }),
            true,
          );
    return html`<div class="stack" role="group" aria-label=${skip ? i.skip : i.remove}>
      <p>${words}</p>
      <div class="row">
        <button class="danger small" ?disabled=${this.busy} @click=${() => void confirm()}>${m.confirm}</button>
        <button class="secondary small" @click=${() => (this.confirming = undefined)}>${m.cancel}</button>
      </div>
    </div>`;
  }

  /** What an admin may do with the destination; the environment's takes only a test. */
  private actions(destination: DestinationView) {
    const { integrations: i } = this.locale;
    const api = destination.kind === 'api';
    return html`<div class="row">
        <button class="small" ?disabled=${this.busy} @click=${() => void this.sendTest(destination)}>
          ${i.sendTest}
        </button>
        ${
          api
            ? html`<button
                class="secondary small"
                ?disabled=${this.busy}
                @click=${() => void this.setEnabled(destination, !destination.enabled)}
              >
                ${destination.enabled ? i.disable : i.enable}
              </button>`
            : nothing
        }
      </div>
      ${
        api
          ? html`<form class="row" aria-label=${i.rotate} @submit=${this.rotate}>
                <label
                  >${i.overlap}
                  <select name="overlap">
                    ${OVERLAPS.map((seconds) => html`<option value=${seconds}>${i.overlapChoices[seconds]}</option>`)}
                  </select>
                </label>
                <button type="submit" class="secondary small" ?disabled=${this.busy}>${i.rotate}</button>
              </form>
              ${
                this.secret
                  ? html`<kassa-shown-once
                      label=${fill(i.secretOf, { url: destination.url })}
                      text=${fill(i.secretOnce, { url: destination.url })}
                      .value=${this.secret}
                      copy-label=${i.copy}
                      copied-label=${i.copied}
                    ></kassa-shown-once>`
                  : nothing
              }
              ${
                this.confirming
                  ? this.confirmation(destination)
                  : html`<div class="row">
                      ${
                        destination.pending > 0
                          ? html`<button class="secondary small" @click=${() => (this.confirming = 'skip')}>
                              ${i.skip}
                            </button>`
                          : nothing
                      }
                      <button class="secondary small" @click=${() => (this.confirming = 'remove')}>${i.remove}</button>
                    </div>`
              }`
          : nothing
      }`;
  }

  private delivery(delivery: DeliveryView) {
    const { integrations: i, language } = this.locale;
    const time = (iso: string | null) => (iso ? new Date(iso).toLocaleTimeString(language) : '—');
    const answered = delivery.lastStatusCode ?? delivery.lastError ?? '—';
    const ok = delivery.lastStatusCode !== null && delivery.lastStatusCode < 300;
    return html`<tr data-delivery=${delivery.eventId} data-status=${delivery.status}>
      <td>${breakable(delivery.type)}<br /><span class="mono muted">${delivery.eventId}</span></td>
      <td class="status">
        ${i.deliveryStatuses[delivery.status]}<br /><span class="muted"
          >${fill(i.attempts, { count: String(delivery.attempts) })}</span
        >
      </td>
      <td>
        ${
          delivery.lastAttemptAt
            ? html`<span class=${ok ? 'ok' : 'error'}>${answered}</span><br /><span class="muted"
                  >${Math.round(delivery.lastDurationMs ?? 0)} ms · ${time(delivery.lastAttemptAt)}</span
                >`
            : '—'
        }
      </td>
      <td>${time(delivery.nextAttemptAt)}</td>
    </tr>`;
  }

  private log() {
    const { m, integrations: i } = this.locale;
    const deliveries = this.deliveries.items;
    return html`<h3 id="log-heading">${i.deliveryLog}</h3>
      <div class="row">
        <label
          >${i.filterDeliveries}
          <select
            @change=${(event: Event) => {
              this.status = (event.target as HTMLSelectElement).value as DeliveryStatus | '';
              void this.deliveries.load();
            }}
          >
            <option value="" ?selected=${!this.status}>${i.allDeliveries}</option>
            ${DELIVERY_STATUSES.map(
              (status) =>
                html`<option value=${status} ?selected=${this.status === status}>
                  ${i.deliveryStatuses[status]}
                </option>`,
            )}
          </select>
        </label>
        <button
          class="secondary small"
          aria-label=${`${m.refresh}: ${i.deliveryLog}`}
          @click=${() => void this.deliveries.load()}
        >
          ${m.refresh}
        </button>
      </div>
      ${
        !deliveries
          ? html`<p class="muted">${m.loading}</p>`
          : deliveries.length
            ? html`<table aria-labelledby="log-heading">
                <thead>
                  <tr>
                    <th>${i.event}</th>
                    <th>${i.status}</th>
                    <th>${i.lastAttempt}</th>
                    <th>${i.nextRetry}</th>
                  </tr>
                </thead>
                <tbody>
                  ${deliveries.map((delivery) => this.delivery(delivery))}
                </tbody>
              </table>`
            : html`<p class="muted">${i.noDeliveries}</p>`
      }
      ${
        this.deliveries.nextCursor
          ? html`<button class="secondary small" @click=${() => void this.deliveries.load(true)}>${i.more}</button>`
          : nothing
      }`;
  }

  override render() {
    const destination = this.destination;
    if (!destination) return nothing;
    const { m, integrations: i, language } = this.locale;
    const manages = this.session.can('destinations:manage');
    return html`<section class="card" aria-label=${fill(i.destinationLabel, { url: destination.url })}>
      ${paneHeader(this, html`<span class="mono">${destination.url}</span>`, m.close)}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error" id="destination-error">${this.error}</p>` : nothing}
      <dl>
        ${
          destination.description
            ? html`<dt>${i.description}</dt>
                <dd>${outsideText(destination.description)}</dd>`
            : nothing
        }
        <dt>${i.eventTypes}</dt>
        <dd>${destination.enabledEvents.includes('*') ? i.allTypes : destination.enabledEvents.join(', ')}</dd>
        <dt>${i.state}</dt>
        <dd class="status">
          ${destination.enabled ? i.enabled : i.disabled}
          ${destination.disabledReason ? html`<br /><span class="muted">${destination.disabledReason}</span>` : nothing}
        </dd>
        <dt>${i.pending}</dt>
        <dd>${destination.pending}</dd>
        ${
          destination.previousSecretExpiresAt
            ? html`<dt>${i.previousSecret}</dt>
                <dd>${new Date(destination.previousSecretExpiresAt).toLocaleString(language)}</dd>`
            : nothing
        }
      </dl>
      ${destination.kind === 'environment' ? html`<p class="muted">${i.fromSettings}</p>` : nothing}
      ${manages ? this.actions(destination) : nothing} ${destination.kind === 'api' ? this.log() : nothing}
    </section>`;
  }
}

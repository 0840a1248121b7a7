import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import {
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventStatus,
  type EventSummary,
  type KassaEventType,
} from '../../schemas/events.ts';
import type { EventEndpointView } from '../../schemas/event-endpoint.ts';
import { breakable } from './breakable.ts';
import { ask } from './client.ts';
import './destinations-panel.ts';
import './event-detail.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { fittedTable, pageStyles } from './styles.ts';
import { SessionController } from './session-controller.ts';
import { fill, UiLocale } from './ui-locale.ts';

const LIMIT = 50;

interface EventFilter {
  status: EventStatus | '';
  type: KassaEventType | '';
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-events-view': KassaEventsView;
  }
}

/** The datetime-local field's value a day ago, in local time, as the bulk form starts with. */
function dayAgo(): string {
  const at = new Date(Date.now() - 86_400_000);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * Where the merchant's events go (destinations-panel.ts: each destination, its delivery log, and for
 * admins what changes them), then the events the proxy sends, newest first: filtered by status and
 * type, one event's attempts and payload in a detail pane, Redeliver per event and for every failed
 * event since a moment. Says when KASSA_EVENTS_URL is disabled (its receiver answered 410 Gone again
 * and again), with the action that enables it.
 */
@customElement('kassa-events-view')
export class KassaEventsView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    css`
      th:nth-child(2) {
        inline-size: 32%;
      }
      th:nth-child(3) {
        inline-size: 24%;
      }
      td button {
        max-inline-size: 100%;
      }
    `,
  ];

  private readonly list = new ListController<EventSummary, EventFilter>(this, {
    filter: { status: '', type: '' },
    load: async ({ status, type }) => {
      const list = await ask({
        kind: 'events.list',
        status: status || undefined,
        type: type || undefined,
        limit: LIMIT,
      });
      this.endpoint = list.endpoint;
      this.endpoints = list.endpoints;
      // The open event is read again with its list: its attempts change as the list's do.
      void this.renderRoot?.querySelector('kassa-event-detail')?.load();
      return list.events;
    },
  });
  /** KASSA_EVENTS_URL; null when it is not set, undefined until the list is read. */
  @state() private endpoint?: string | null;
  /** Where the proxy sends events, with whether they go there now. */
  @state() private endpoints: EventEndpointView[] = [];
  @state() private selected?: string;
  @state() private notice?: string;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  private redeliver(event: EventSummary): Promise<void> {
    return this.list.act(
      () => ask({ kind: 'events.redeliver', id: event.id }),
      () => {
        this.notice = fill(this.locale.m.eventQueued, { type: event.type, id: event.id });
      },
    );
  }

  private enable(endpoint: EventEndpointView): Promise<void> {
    return this.list.act(
      () => ask({ kind: 'events.enableEndpoint', id: endpoint.id }),
      ({ url }) => {
        this.notice = fill(this.locale.m.endpointEnabled, { url });
      },
    );
  }

  private disabled(endpoint: EventEndpointView) {
    const { m, language } = this.locale;
    const since = new Date(endpoint.disabledAt ?? 0).toLocaleString(language);
    return html`<div role="alert" class="card" data-endpoint=${endpoint.id}>
      <p>${fill(m.endpointDisabled, { url: endpoint.url, since, reason: endpoint.disabledReason ?? '' })}</p>
      <button
        class="small"
        aria-label=${fill(m.enableEndpointOf, { url: endpoint.url })}
        @click=${() => void this.enable(endpoint)}
      >
        ${m.enableEndpoint}
      </button>
    </div>`;
  }

  private readonly redeliverFailed = (submit: SubmitEvent): Promise<void> => {
    submit.preventDefault();
    const { since } = formValues(submit.target as HTMLFormElement, ['since']);
    return this.list.act(
      () => {
        const at = new Date(since);
        if (!since || Number.isNaN(at.getTime())) throw new Error(this.locale.m.pickSince);
        return ask({ kind: 'events.redeliverFailed', since: at.toISOString() });
      },
      ({ redelivered }) =>
        (this.notice =
          redelivered === 1
            ? this.locale.m.redeliveredOne
            : fill(this.locale.m.redeliveredMany, { count: String(redelivered) })),
    );
  };

  private setFilter(change: Partial<EventFilter>): void {
    void this.list.setFilter({ ...this.list.filter, ...change });
  }

  private row(event: EventSummary) {
    const { m, language } = this.locale;
    const redelivers = this.session.can('events:redeliver');
    // The name begins with what the button shows, as speech input users say it.
    return html`<tr data-event=${event.id} aria-selected=${this.selected === event.id ? 'true' : 'false'}>
      <td>
        <button
          class="secondary small"
          aria-label=${`${event.type}: ${fill(m.detailsOf, { id: event.id })}`}
          @click=${() => (this.selected = event.id)}
        >
          ${breakable(event.type)}
        </button>
        <br /><span class="muted">${event.checkoutId ?? event.transactionId ?? ''}</span> <br /><span class="muted"
          >${new Date(event.createdAt).toLocaleTimeString(language)}</span
        >
      </td>
      <td class="status">
        ${event.status}<br /><span class="muted">${fill(m.attemptsCount, { count: String(event.attempts) })}</span>
        ${event.lastError ? html`<br /><span class="muted">${event.lastError}</span>` : nothing}
      </td>
      ${
        redelivers
          ? html`<td>
              <button
                class="secondary small"
                aria-label=${fill(m.redeliverEvent, { id: event.id })}
                @click=${() => void this.redeliver(event)}
              >
                ${m.redeliver}
              </button>
            </td>`
          : nothing
      }
    </tr>`;
  }

  override render() {
    const { status, type } = this.list.filter;
    const { m } = this.locale;
    return html`
      <kassa-destinations></kassa-destinations>
      <h2>${m.events}</h2>
      <kassa-filter-bar
        label=${m.status}
        filter-label=${m.filterBy}
        .choices=${EVENT_STATUSES}
        .value=${status}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          this.setFilter({ status: event.detail.value as EventStatus | '' })}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      <kassa-filter-bar
        label=${m.type}
        filter-label=${m.filterByType}
        no-refresh
        .choices=${EVENT_TYPES}
        .value=${type}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          this.setFilter({ type: event.detail.value as KassaEventType | '' })}
      ></kassa-filter-bar>
      ${this.endpoint ? html`<p class="muted">${m.sentTo} <span class="mono">${this.endpoint}</span></p>` : nothing}
      ${this.endpoints.filter((endpoint) => !endpoint.enabled).map((endpoint) => this.disabled(endpoint))}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.list.render({
        label: m.events,
        loading: m.loading,
        headings: [m.eventHeading, m.status, ...(this.session.can('events:redeliver') ? [''] : [])],
        actions: m.actions,
        row: (event) => this.row(event),
        empty: ({ status, type }) =>
          fill(
            status && type ? m.noEventsWithBoth : status ? m.noEventsWithStatus : type ? m.noEventsOfType : m.noEvents,
            { status, type },
          ),
      })}
      ${
        this.selected
          ? html`<kassa-event-detail
              event-id=${this.selected}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-redelivered=${() => void this.list.refresh()}
            ></kassa-event-detail>`
          : nothing
      }
      ${
        this.session.can('events:redeliver')
          ? html`<form class="row" aria-label=${m.redeliverFailedForm} @submit=${this.redeliverFailed}>
              <label>${m.failedSince} <input type="datetime-local" name="since" .value=${dayAgo()} /></label>
              <button type="submit" class="small">${m.redeliverFailed}</button>
            </form>`
          : nothing
      }
    `;
  }
}

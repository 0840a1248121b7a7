import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import { EVENT_TYPES } from '../../schemas/events.ts';
import type { DestinationView } from '../../schemas/event-destinations.ts';
import { ask } from './client.ts';
import { breakable } from './breakable.ts';
import type { DestinationChangedDetail } from './destination-detail.ts';
import './destination-detail.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import './shown-once.ts';
import { choiceGroup, fittedTable, pageStyles, rowLinks } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-destinations': KassaDestinations;
  }
}

/**
 * Where the merchant's events go: every destination (KASSA_EVENTS_URL first when set) with its event
 * types, whether it is enabled and how many events wait for it; a row opens the destination
 * (destination-detail.ts) with its delivery log. Admins (`destinations:manage`) add one here, its
 * signing secret shown once; everyone else reads, and is told what changing them needs.
 */
@customElement('kassa-destinations')
export class KassaDestinations extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    choiceGroup,
    css`
      th:nth-child(2) {
        inline-size: 30%;
      }
      th:nth-child(3) {
        inline-size: 26%;
      }
    `,
  ];

  @state() private selected?: string;
  /** The secret of the destination just added, shown this once. */
  @state() private added?: { url: string; secret: string };
  @state() private problems: { url?: string; types?: string } = {};
  @state() private formError?: string;
  @state() private notice?: string;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  private readonly list = new ListController<DestinationView, ''>(this, {
    filter: '',
    load: async () => (await ask({ kind: 'destinations.list' })).destinations,
    describe: (error) => refusalText(error, this.locale),
  });

  private readonly add = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const { url, description } = formValues(form, ['url', 'description']);
    const chosen = new FormData(form).getAll('type').map(String);
    const enabledEvents = (chosen.includes('*') ? ['*'] : chosen) as Array<'*' | (typeof EVENT_TYPES)[number]>;
    const { integrations: i } = this.locale;
    this.formError = this.added = this.notice = undefined;
    this.problems = {
      ...(isHttpsOrLoopback(url.trim()) ? {} : { url: i.problemUrl }),
      ...(enabledEvents.length ? {} : { types: i.problemTypes }),
    };
    if (this.problems.url || this.problems.types) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(this.problems.url ? 'form [name=url]' : 'form [name=type]')?.focus();
      return;
    }
    try {
      const { destination, secret } = await ask({
        kind: 'destinations.create',
        url: url.trim(),
        description: description.trim(),
        enabledEvents,
      });
      this.added = { url: destination.url, secret };
      this.notice = fill(i.added, { url: destination.url });
      form.reset();
      await this.list.refresh();
    } catch (error) {
      this.formError = refusalText(error, this.locale);
    }
  };

  /** A change in the open destination's pane: the list follows; a removal is told here, its pane gone. */
  private readonly changed = (event: CustomEvent<DestinationChangedDetail>): void => {
    if (event.detail.removed) {
      this.selected = undefined;
      this.notice = event.detail.removed;
    }
    void this.list.refresh();
  };

  private row(destination: DestinationView) {
    const { integrations: i } = this.locale;
    const types = destination.enabledEvents.includes('*')
      ? i.all
      : destination.enabledEvents.map((type, index) => html`${index ? html`, ` : nothing}${breakable(type)}`);
    return html`<tr
      data-destination=${destination.id}
      aria-selected=${this.selected === destination.id ? 'true' : 'false'}
    >
      <td>
        <button
          aria-label=${fill(i.destinationLabel, { url: destination.url })}
          @click=${() => {
            this.selected = destination.id;
            this.notice = undefined;
          }}
        >
          ${destination.url}
        </button>
        ${destination.description ? html`<br /><span class="muted">${outsideText(destination.description)}</span>` : nothing}
      </td>
      <td>${types}</td>
      <td class="status">
        ${destination.enabled ? i.enabled : i.disabled}<br /><span class="muted"
          >${fill(i.waiting, { count: String(destination.pending) })}</span
        >
      </td>
    </tr>`;
  }

  private problem(name: 'url' | 'types') {
    const problem = this.problems[name];
    return problem ? html`<span class="error" id="${name}-problem">${problem}</span>` : nothing;
  }

  private form() {
    const { integrations: i } = this.locale;
    const invalid = (name: 'url' | 'types') => (this.problems[name] ? 'true' : 'false');
    return html`<details>
      <summary>${i.addTitle}</summary>
      <form aria-label=${i.addTitle} novalidate @submit=${this.add}>
        <div class="stack">
          <label
            >${i.url}
            <input
              name="url"
              type="url"
              maxlength="2048"
              placeholder="https://"
              aria-invalid=${invalid('url')}
              aria-describedby=${this.problems.url ? 'url-problem' : nothing}
          /></label>
          ${this.problem('url')}
        </div>
        <label>${i.description} <input name="description" maxlength="200" /></label>
        <fieldset aria-invalid=${invalid('types')} aria-describedby=${this.problems.types ? 'types-problem' : nothing}>
          <legend>${i.eventTypes}</legend>
          <label class="choice"><input type="checkbox" name="type" value="*" checked /> ${i.allTypes}</label>
          ${EVENT_TYPES.map(
            (type) => html`<label class="choice"><input type="checkbox" name="type" value=${type} /> ${type}</label>`,
          )}
        </fieldset>
        ${this.problem('types')}
        ${this.formError ? html`<p role="alert" class="error" id="add-error">${this.formError}</p>` : nothing}
        <button type="submit">${i.add}</button>
      </form>
    </details>`;
  }

  override render() {
    const { m, integrations: i, people } = this.locale;
    const selected = this.list.items.find((destination) => destination.id === this.selected);
    const none = !this.list.loading && !this.list.error && !this.list.items.length;
    return html`<section aria-labelledby="destinations-heading">
      <div class="row">
        <h2 id="destinations-heading">${i.destinations}</h2>
        <button
          class="secondary small"
          aria-label=${`${m.refresh}: ${i.destinations}`}
          @click=${() => void this.list.refresh()}
        >
          ${m.refresh}
        </button>
      </div>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        this.added
          ? html`<kassa-shown-once
              label=${fill(i.secretOf, { url: this.added.url })}
              text=${fill(i.secretOnce, { url: this.added.url })}
              .value=${this.added.secret}
              copy-label=${i.copy}
              copied-label=${i.copied}
            ></kassa-shown-once>`
          : nothing
      }
      ${
        none
          ? html`<p role="note" class="card" id="not-configured">${i.noDestination}</p>`
          : this.list.render({
              label: i.destinations,
              loading: m.loading,
              headings: [i.url, i.eventTypes, i.state],
              row: (destination) => this.row(destination),
              empty: () => i.noDestination,
            })
      }
      ${
        selected
          ? html`<kassa-destination-detail
              .destination=${selected}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-destination-changed=${this.changed}
            ></kassa-destination-detail>`
          : nothing
      }
      ${
        this.session.can('destinations:manage')
          ? this.form()
          : html`<p class="muted" id="read-only">
              ${fill(i.readOnly, {
                permission: `${people.permissions['destinations:manage']} (destinations:manage)`,
              })}
            </p>`
      }
    </section>`;
  }
}

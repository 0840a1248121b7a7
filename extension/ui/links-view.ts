import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { LINK_STATUSES, type LinkView } from '../../schemas/links.ts';
import { ask } from './client.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import './link-detail.ts';
import './link-form.ts';
import { linkAmount, linkTotal, linkUses, shortTime } from './link-words.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import { fittedTable, pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

type LinkStatus = LinkView['status'];

declare global {
  interface HTMLElementTagNameMap {
    'kassa-links-view': KassaLinksView;
  }
}

/**
 * The merchant's payment links (docs/links.md), newest first: each one's title and what it asks, its
 * status in words with its payments counted, and its total with the last payment; filtered by status;
 * _More_ along the proxy's cursor. A link opens in a pane (link-detail.ts: address, QR code, payments,
 * CSV, and the moves). Those who manage links (links:manage) make them here (link-form.ts); a viewer
 * reads, and is told what changing needs.
 */
@customElement('kassa-links-view')
export class KassaLinksView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    css`
      th:nth-child(2),
      th:nth-child(3) {
        inline-size: 30%;
      }
      td button {
        max-inline-size: 100%;
        text-align: start;
      }
    `,
  ];

  @state() private selected?: string;
  @state() private notice?: string;
  /** Why the next page could not be read. */
  @state() private failure?: string;
  @state() private nextCursor: string | null = null;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  private readonly list = new ListController<LinkView, LinkStatus | ''>(this, {
    filter: '',
    load: async (status) => {
      const page = await ask({ kind: 'links.list', status: status || undefined });
      this.nextCursor = page.nextCursor;
      return page.links;
    },
    describe: (error) => refusalText(error, this.locale),
  });

  private async more(): Promise<void> {
    const status = this.list.filter;
    this.failure = undefined;
    try {
      const page = await ask({ kind: 'links.list', status: status || undefined, cursor: this.nextCursor ?? undefined });
      if (status !== this.list.filter) return;
      this.list.items = [...this.list.items, ...page.links];
      this.nextCursor = page.nextCursor;
    } catch (error) {
      this.failure = refusalText(error, this.locale);
    }
  }

  private readonly made = (event: CustomEvent<LinkView>): void => {
    this.notice = fill(this.locale.links.made, { title: event.detail.title });
    this.selected = event.detail.code;
    void this.list.refresh();
  };

  private readonly changed = (event: CustomEvent<LinkView>): void => {
    this.list.items = this.list.items.map((link) => (link.code === event.detail.code ? event.detail : link));
    void this.list.refresh();
  };

  private row(link: LinkView) {
    const { links: w } = this.locale;
    const last = link.payments.lastPaidAt;
    return html`<tr
      data-link=${link.code}
      data-status=${link.status}
      aria-selected=${this.selected === link.code ? 'true' : 'false'}
    >
      <td>
        <button
          class="secondary small"
          aria-label=${`${link.title}: ${fill(w.detailsOf, { title: link.title })}`}
          @click=${() => (this.selected = link.code)}
        >
          ${outsideText(link.title)}
        </button>
        <br /><span class="muted">${linkAmount(link, this.locale)}</span>
      </td>
      <td class="status">${w.statuses[link.status]}<br /><span class="muted">${linkUses(link, this.locale)}</span></td>
      <td>
        ${linkTotal(link, this.locale)}<br /><span class="muted"
          >${last ? fill(w.lastPayment, { time: shortTime(last, this.locale) }) : w.noPayment}</span
        >
      </td>
    </tr>`;
  }

  override render() {
    const { m, links: w, people } = this.locale;
    const manages = this.session.can('links:manage');
    const open = this.list.items.find((link) => link.code === this.selected);
    return html`
      <h2>${w.links}</h2>
      <p class="muted">${w.intro}</p>
      ${
        manages
          ? nothing
          : html`<p class="muted" id="read-only">
              ${fill(w.readOnly, { permission: `${people.permissions['links:manage']} (links:manage)` })}
            </p>`
      }
      <kassa-filter-bar
        label=${w.status}
        filter-label=${w.filter}
        .choices=${LINK_STATUSES}
        .labels=${w.statuses}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) =>
          void this.list.setFilter(event.detail.value as LinkStatus | '')}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.list.render({
        label: w.links,
        loading: m.loading,
        headings: [w.link, w.status, w.paid],
        row: (link) => this.row(link),
        empty: (status) => (status ? fill(w.noLinksWith, { status: w.statuses[status] }) : w.noLinks),
      })}
      ${this.failure ? html`<p role="alert" class="error">${this.failure}</p>` : nothing}
      ${this.nextCursor ? html`<button class="secondary small" @click=${() => void this.more()}>${w.more}</button>` : nothing}
      ${
        open
          ? html`<kassa-link-detail
              .link=${open}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-link-changed=${this.changed}
            ></kassa-link-detail>`
          : nothing
      }
      ${manages ? html`<kassa-link-form @kassa-link-made=${this.made}></kassa-link-form>` : nothing}
    `;
  }
}

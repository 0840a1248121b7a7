import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { LinkPaymentView, LinkView } from '../../schemas/links.ts';
import { formatMoney } from '../../widget/ui.ts';
import type { LinkMove } from '../link-messages.ts';
import { ask } from './client.ts';
import { linkAmount, linkTotal, linkUses, shortTime } from './link-words.ts';
import { outsideText } from './outside-text.ts';
import { PagedReads } from './paged-reads.ts';
import { paneHeader } from './pane-header.ts';
import { refusalText } from './refusal.ts';
import { saveFile } from './save-file.ts';
import { SessionController } from './session-controller.ts';
import { fittedTable, pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-link-detail': KassaLinkDetail;
  }
  interface HTMLElementEventMap {
    'kassa-link-changed': CustomEvent<LinkView>;
  }
}

/** The moves a link's state offers: pause an active one, resume a paused one, end either. */
const MOVES: Record<LinkView['state'], readonly LinkMove[]> = {
  active: ['pause', 'end'],
  paused: ['resume', 'end'],
  ended: [],
};

/**
 * One payment link: its address with _Copy_ and its QR code (to print or send), what it asks and its
 * caps, its payments counted (count, total, the last one, those under way) and listed, newest first,
 * with _Download CSV_; for those who manage links (links:manage), _Pause_, _Resume_ and _End_, the
 * last after a confirmation, since it is for good.
 *
 * @fires kassa-link-changed - The link was paused, resumed or ended (its new view).
 * @fires kassa-close - The Close button was pressed.
 */
@customElement('kassa-link-detail')
export class KassaLinkDetail extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    css`
      .qr {
        display: block;
        inline-size: 10rem;
        block-size: 10rem;
        background: #fff;
      }
      th:nth-child(1) {
        inline-size: 40%;
      }
    `,
  ];

  /** The link, as the list has it; its payments and QR code are read whenever it is another one. */
  @property({ attribute: false }) link?: LinkView;
  @state() private qr?: string;
  @state() private confirming = false;
  @state() private notice?: string;
  @state() private error?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  /** The link's payments, a page at a time. */
  private readonly payments = new PagedReads<LinkPaymentView>(this, {
    read: (cursor) => {
      const link = this.link;
      return (
        link &&
        ask({ kind: 'links.payments', code: link.code, cursor }).then((page) => ({
          items: page.payments,
          nextCursor: page.nextCursor,
        }))
      );
    },
    failed: (error) => (this.error = refusalText(error, this.locale)),
  });

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('link') as LinkView | undefined;
    if (changed.has('link') && before?.code !== this.link?.code) {
      this.confirming = false;
      this.notice = this.error = this.qr = undefined;
      this.payments.clear();
      void this.payments.load();
      void this.loadQr();
    }
  }

  /** Reads the QR code of a link with an address; an answer for a link no longer shown is dropped. */
  private async loadQr(): Promise<void> {
    const link = this.link;
    if (!link?.url) return;
    try {
      const { svg } = await ask({ kind: 'links.qr', code: link.code });
      if (this.link?.code === link.code) this.qr = svg;
    } catch (error) {
      if (this.link?.code === link.code) this.error = refusalText(error, this.locale);
    }
  }

  private async move(move: LinkMove): Promise<void> {
    const link = this.link!;
    this.busy = true;
    this.error = this.notice = undefined;
    try {
      const moved = await ask({ kind: 'links.move', code: link.code, move });
      this.confirming = false;
      this.notice = fill(this.locale.links.moved[move], { title: link.title });
      this.dispatchEvent(new CustomEvent('kassa-link-changed', { detail: moved, bubbles: true, composed: true }));
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.link!.url!);
      this.notice = this.locale.links.copied;
    } catch (error) {
      this.error = refusalText(error, this.locale);
    }
  }

  private async download(): Promise<void> {
    this.error = undefined;
    try {
      const file = await ask({ kind: 'links.export', code: this.link!.code });
      saveFile(this.renderRoot, { filename: file.filename, text: file.csv, type: 'text/csv' });
    } catch (error) {
      this.error = refusalText(error, this.locale);
    }
  }

  /** The state's moves, for those who manage links; End asks first. */
  private actions(link: LinkView) {
    const { links: w } = this.locale;
    if (!this.session.can('links:manage') || !MOVES[link.state].length) return nothing;
    if (this.confirming)
      return html`<div class="card stack" role="group" aria-label=${fill(w.endOf, { title: link.title })}>
        <p>${fill(w.confirmEnd, { title: link.title })}</p>
        <div class="row">
          <button class="danger small" ?disabled=${this.busy} @click=${() => void this.move('end')}>
            ${w.confirm}
          </button>
          <button class="secondary small" @click=${() => (this.confirming = false)}>${w.cancel}</button>
        </div>
      </div>`;
    return html`<div class="row">
      ${MOVES[link.state].map((move) =>
        move === 'end'
          ? html`<button class="secondary small" @click=${() => (this.confirming = true)}>${w.end}</button>`
          : html`<button class="small" ?disabled=${this.busy} @click=${() => void this.move(move)}>${w[move]}</button>`,
      )}
    </div>`;
  }

  private facts(link: LinkView) {
    const { links: w } = this.locale;
    const money = (amount: string) => formatMoney(amount, link.currencyCode, this.locale.language);
    const caps = [
      ...(link.maxUses === null
        ? []
        : [link.maxUses === 1 ? w.singleUse : fill(w.capUses, { max: String(link.maxUses) })]),
      ...(link.maxTotal === null ? [] : [fill(w.capTotal, { total: money(link.maxTotal) })]),
    ];
    return html`<dl>
      <dt>${w.amount}</dt>
      <dd>${linkAmount(link, this.locale)}</dd>
      <dt>${w.reference}</dt>
      <dd class="mono">${outsideText(link.reference)}</dd>
      <dt>${w.status}</dt>
      <dd id="link-status">${w.statuses[link.status]}</dd>
      <dt>${w.expiresAt}</dt>
      <dd>${link.expiresAt ? shortTime(link.expiresAt, this.locale) : w.never}</dd>
      <dt>${w.caps}</dt>
      <dd>${caps.length ? caps.join(' · ') : w.noCaps}</dd>
      <dt>${w.returnsTo}</dt>
      <dd>${link.returnUrl ? outsideText(link.returnUrl) : w.receiptPage}</dd>
      <dt>${w.count}</dt>
      <dd id="link-count">${linkUses(link, this.locale)}</dd>
      <dt>${w.total}</dt>
      <dd id="link-total">${linkTotal(link, this.locale)}</dd>
      <dt>${w.lastPaid}</dt>
      <dd>${link.payments.lastPaidAt ? shortTime(link.payments.lastPaidAt, this.locale) : w.noPayment}</dd>
      <dt>${w.pending}</dt>
      <dd>${fill(w.pendingCount, { count: String(link.pending.count) })}</dd>
      <dt>${w.created}</dt>
      <dd>${shortTime(link.createdAt, this.locale)}</dd>
    </dl>`;
  }

  private address(link: LinkView) {
    const { links: w } = this.locale;
    if (!link.url) return html`<p class="muted">${w.noAddress}</p>`;
    return html`<div class="stack">
      <label>${w.address} <input id="link-url" class="mono" readonly .value=${link.url} /></label>
      <button class="secondary small" @click=${() => void this.copy()}>${w.copy}</button>
      ${this.qr ? html`<img class="qr" src=${this.qr} alt=${fill(w.qrOf, { title: link.title })} />` : nothing}
    </div>`;
  }

  private paymentRows() {
    const { links: w } = this.locale;
    const link = this.link!;
    const payments = this.payments.items;
    if (!payments) return html`<p class="muted">${this.locale.m.loading}</p>`;
    if (!payments.length) return html`<p class="muted">${w.noPayments}</p>`;
    return html`<table aria-label=${w.payments}>
        <thead>
          <tr>
            <th>${w.reference}</th>
            <th>${w.amount}</th>
            <th>${w.paymentState}</th>
          </tr>
        </thead>
        <tbody>
          ${payments.map(
            (payment) =>
              html`<tr data-payment=${payment.checkoutId} data-state=${payment.state}>
                <td class="mono">${outsideText(payment.reference)}</td>
                <td>${formatMoney(payment.amount, link.currencyCode, this.locale.language)}</td>
                <td class="status">
                  ${w.paymentStates[payment.state]}<br /><span class="muted"
                    >${shortTime(payment.settledAt ?? payment.createdAt, this.locale)}</span
                  >
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        this.payments.nextCursor
          ? html`<button class="secondary small" @click=${() => void this.payments.load(true)}>${w.more}</button>`
          : nothing
      }`;
  }

  override render() {
    const link = this.link;
    if (!link) return nothing;
    const { links: w } = this.locale;
    return html`<section class="card stack" aria-label=${fill(w.linkOf, { title: link.title })}>
      ${paneHeader(this, outsideText(link.title), w.close)}
      ${link.description ? html`<p>${outsideText(link.description)}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing} ${this.address(link)}
      ${this.facts(link)} ${this.actions(link)}
      <div class="row">
        <h3>${w.payments}</h3>
        <button class="secondary small" @click=${() => void this.download()}>${w.downloadCsv}</button>
      </div>
      ${this.paymentRows()}
    </section>`;
  }
}

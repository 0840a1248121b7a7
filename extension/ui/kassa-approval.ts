import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { describeTransfer, type TransferPreview } from '../../lib/transfer-preview.ts';
// The wallet panel's template and words for the preview: the two must read the same.
import { fill, previewStyles, previewView, significant } from '../../widget/ui.ts';
import { APPROVAL_PORT } from '../channels.ts';
import type { ApprovalView } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { proofStyles, proofView } from './proof-view.ts';
import { pageStyles } from './styles.ts';
import { UiLocale } from './ui-locale.ts';

const HEARTBEAT_MS = 20_000;
/** How often the window reads again how many requests wait behind it (they may arrive after it opened). */
const QUEUE_MS = 1_000;
/**
 * Approve and Connect answer only once the request has been shown, with the window focused, this
 * long: a click or key press meant for the page (a double click, say) must not land on a window that
 * just opened under it. Losing the focus disarms them; getting it back starts the wait again.
 */
export const ARMING_MS = 600;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-approval': KassaApproval;
  }
}

/**
 * The approval window: a site asks to connect, to send a transaction, or to sign a purchase's
 * ownership proof. A transaction is shown as the shared transfer preview (lib/transfer-preview.ts)
 * decodes it, the same words the wallet panel uses; what approving signs is exactly that transaction
 * (the worker fills in only the nonce). A proof is shown in words (proof-view.ts), then as signed. It
 * speaks the asking page's language when Kassa does, else the extension's language setting.
 */
@customElement('kassa-approval')
export class KassaApproval extends LitElement {
  static override styles = [
    ...pageStyles,
    previewStyles,
    proofStyles,
    css`
      :host {
        display: block;
        box-sizing: border-box;
        min-height: 100vh;
        padding: 1rem;
        background: var(--_background);
      }
      .origin {
        font-weight: 700;
        word-break: break-all;
      }
      .preview {
        margin: 0.75rem 0;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-top: 1rem;
      }
      .warning {
        border: 1px solid var(--_danger);
        border-radius: calc(var(--_radius) * 0.5);
        padding: 0.5rem;
        color: var(--_danger);
        font-weight: 600;
      }
    `,
  ];

  @state() private view?: ApprovalView;
  @state() private preview?: TransferPreview;
  @state() private error?: string;
  @state() private busy = false;
  /** The time, read again each second: a purchase proof's window shows when it expires, and that it has. */
  @state() private now = Date.now();
  @state() private done?: 'approved' | 'rejected';
  /** Whether Approve / Connect answer yet (ARMING_MS after the request showed, focused). */
  @state() private armed = false;
  private arming?: ReturnType<typeof setTimeout>;
  private readonly onFocus = () => {
    clearTimeout(this.arming);
    this.armed = false;
    if (this.view && document.hasFocus()) this.arming = setTimeout(() => (this.armed = document.hasFocus()), ARMING_MS);
  };
  private readonly onBlur = () => {
    clearTimeout(this.arming);
    this.armed = false;
  };
  private readonly locale = new UiLocale(this);
  private readonly requestId = new URLSearchParams(location.search).get('id') ?? '';
  private heartbeat?: ReturnType<typeof setInterval>;
  private queueWatch?: ReturnType<typeof setInterval>;

  override connectedCallback(): void {
    super.connectedCallback();
    const port = chrome.runtime.connect({ name: APPROVAL_PORT });
    this.heartbeat = setInterval(() => port.postMessage({ type: 'heartbeat' }), HEARTBEAT_MS);
    window.addEventListener('focus', this.onFocus);
    window.addEventListener('blur', this.onBlur);
    void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.heartbeat);
    clearInterval(this.queueWatch);
    clearTimeout(this.arming);
    window.removeEventListener('focus', this.onFocus);
    window.removeEventListener('blur', this.onBlur);
  }

  private async load(): Promise<void> {
    try {
      const view = await ask({ kind: 'approval.get', id: this.requestId });
      if (view.kind === 'transaction') this.preview = describeTransfer(view.tx, view.chains, view.from);
      this.locale.usePageLanguage(view.lang);
      this.view = view;
      // The wait starts once the request is on screen.
      await this.updateComplete;
      this.onFocus();
      this.queueWatch = setInterval(() => void this.readQueue(), QUEUE_MS);
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  /** The requests waiting behind this one, now (the rest of the view stays as it was shown). */
  private async readQueue(): Promise<void> {
    const view = this.view;
    this.now = Date.now();
    if (!view || this.done) return;
    const now = await ask({ kind: 'approval.get', id: this.requestId }).catch(() => undefined);
    if (now && this.view === view && now.queued !== view.queued) this.view = { ...view, queued: now.queued };
  }

  private async answer(approve: boolean, block = false): Promise<void> {
    if (this.busy || (approve && !this.armed)) return;
    const view = this.view;
    if (approve && view?.kind === 'proof' && Date.now() >= Date.parse(view.message.expirationTime)) return;
    const password = this.renderRoot.querySelector<HTMLInputElement>('input[name=password]')?.value;
    this.busy = true;
    this.error = undefined;
    try {
      await ask({
        kind: 'approval.answer',
        id: this.requestId,
        approve,
        ...(password ? { password } : {}),
        ...(block ? { block } : {}),
      });
      this.done = approve ? 'approved' : 'rejected';
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
    }
  }

  private connectView(view: Extract<ApprovalView, { kind: 'connect' }>) {
    const { m } = this.locale;
    return html`
      <h1>${m.connectTitle}</h1>
      <p class="origin" id="origin"><bdi>${view.origin}</bdi></p>
      <p>${m.connectBody}</p>
      ${view.address ? html`<p class="mono" id="address">${view.address}</p>` : nothing}
      ${
        view.state === 'locked'
          ? html`<label
              >${m.lockedPassword}
              <input
                name="password"
                type="password"
                autocomplete="current-password"
                @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && void this.answer(true)}
            /></label>`
          : nothing
      }
      ${this.actions(view, m.connect)}
    `;
  }

  private transactionView(view: Extract<ApprovalView, { kind: 'transaction' }>) {
    const preview = this.preview!;
    const { m, bridge, language } = this.locale;
    return html`
      <h1>${m.transferTitle}</h1>
      <p>
        ${m.askedBy} <span class="origin" id="origin"><bdi>${view.origin}</bdi></span>
      </p>
      ${previewView(preview, bridge, language, preview.chain.chainId)}
      ${
        view.fee.high
          ? html`<p class="warning" role="alert" data-field="fee-warning">
              ${fill(m.feeHigh, { usual: significant(view.fee.usual, preview.chain.nativeSymbol, language) })}
            </p>`
          : nothing
      }
      ${this.actions(view, m.approve)}
    `;
  }

  /** Reject, Approve (or Connect: `approveLabel`; off while not armed, or `refused`), and Reject and block. */
  private actions(view: ApprovalView, approveLabel: string, refused = false) {
    const { m } = this.locale;
    return html`<div class="actions">
        <button class="secondary" @click=${() => void this.answer(false)} aria-disabled=${this.busy ? 'true' : 'false'}>
          ${m.reject}
        </button>
        <button
          id="approve"
          @click=${() => void this.answer(true)}
          ?disabled=${!this.armed || refused}
          aria-disabled=${this.busy ? 'true' : 'false'}
        >
          ${this.busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${approveLabel}
        </button>
        ${
          view.rejectedBefore
            ? html`<button class="secondary" id="block" @click=${() => void this.answer(false, true)}>
                ${m.rejectAndBlock}
              </button>`
            : nothing
        }
      </div>
      ${view.queued ? html`<p class="muted" id="queued">${fill(m.queued, { count: String(view.queued) })}</p>` : nothing}`;
  }

  override render() {
    const { view } = this;
    const { m } = this.locale;
    return html`
      ${
        this.done
          ? html`<p role="status">${m[this.done]}</p>`
          : !view
            ? this.error
              ? nothing
              : html`<p class="muted">${m.loading}</p>`
            : view.kind === 'connect'
              ? this.connectView(view)
              : view.kind === 'proof'
                ? proofView(view, this.locale, this.now, (expired) => this.actions(view, m.approve, expired))
                : this.transactionView(view)
      }
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${!view && this.error ? html`<button class="secondary" @click=${() => globalThis.close()}>${m.close}</button>` : nothing}
    `;
  }
}

import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { Permission } from '../../schemas/operators.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

/**
 * The tabs: the operator views need the person signed in (`operator`), and the admins' views a
 * permission besides (`needs`), without which they are not offered at all.
 */
const TABS: ReadonlyArray<{
  id: string;
  label:
    | 'tabPayments'
    | 'tabPurchases'
    | 'tabOrders'
    | 'tabApprovals'
    | 'tabEvents'
    | 'tabLinks'
    | 'tabTeam'
    | 'tabAudit'
    | 'tabKeys'
    | 'tabWallet'
    | 'tabSettings';
  load(): Promise<unknown>;
  operator?: true;
  needs?: Permission;
}> = [
  { id: 'payments', label: 'tabPayments', load: () => import('./payments-view.ts'), operator: true },
  { id: 'purchases', label: 'tabPurchases', load: () => import('./purchases-view.ts'), operator: true },
  { id: 'orders', label: 'tabOrders', load: () => import('./orders-view.ts'), operator: true },
  { id: 'approvals', label: 'tabApprovals', load: () => import('./approvals-view.ts'), operator: true },
  { id: 'events', label: 'tabEvents', load: () => import('./events-view.ts'), operator: true },
  { id: 'links', label: 'tabLinks', load: () => import('./links-view.ts'), operator: true, needs: 'links:read' },
  { id: 'team', label: 'tabTeam', load: () => import('./team-view.ts'), operator: true, needs: 'operators:manage' },
  { id: 'audit', label: 'tabAudit', load: () => import('./audit-view.ts'), operator: true, needs: 'audit:read' },
  {
    id: 'keys',
    label: 'tabKeys',
    load: () => import('./merchant-keys-view.ts'),
    operator: true,
    needs: 'merchant_keys:manage',
  },
  { id: 'wallet', label: 'tabWallet', load: () => import('./wallet-view.ts') },
  { id: 'settings', label: 'tabSettings', load: () => import('./settings-view.ts') },
];
type Tab = string;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-extension-app': KassaExtensionApp;
  }
}

/**
 * The popup and the side panel: Payments, Purchases (the on-ramp's), Orders, Approvals, Events, Links, for
 * admins Team, Audit and Keys (merchant keys), then Wallet and Settings. The shell renders at once; each view's code (and
 * the schemas and ethers that orders and the wallet need) loads when it is opened. It opens on
 * Settings until the person is signed in. Signed out (a revocation, an expiry), the operator views
 * give way at once to "Signed out: sign in again".
 */
@customElement('kassa-extension-app')
export class KassaExtensionApp extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      /* The app fills the page: one background in dark mode, none of the page's own below it. */
      :host {
        display: block;
        min-width: 360px;
        min-height: 100vh;
        background: var(--_background);
      }
      header {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        padding: 0.5rem 0.75rem;
        border-bottom: 1px solid var(--_border);
      }
      header img {
        inline-size: 1.5rem;
        block-size: 1.5rem;
      }
      header h1 {
        flex: 1;
        margin: 0;
        font-size: 1rem;
      }
      /* Up to eleven tabs share 360 px; where a language's names do not fit in one line, the row wraps. */
      [role='tablist'] {
        display: flex;
        flex-wrap: wrap;
        border-bottom: 1px solid var(--_border);
      }
      [role='tab'] {
        flex: 1 1 auto;
        width: auto;
        min-width: 0;
        padding: 0.35em 0.4em;
        font-size: 0.8rem;
        border-radius: 0;
        background: transparent;
        color: var(--_muted);
        border: none;
        border-bottom: 3px solid transparent;
        min-height: 2.5rem;
      }
      [role='tab'][aria-selected='true'] {
        color: var(--_text);
        border-bottom-color: var(--_primary);
      }
      [role='tabpanel'] {
        padding: 0.75rem;
      }
    `,
  ];

  /** `popup` or `sidepanel`: the side panel has no "open side panel" button. */
  @property() mode: 'popup' | 'sidepanel' = 'popup';
  @state() private tab?: Tab;
  @state() private loaded = new Set<Tab>();
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  override connectedCallback(): void {
    super.connectedCallback();
    const wanted = new URLSearchParams(location.search).get('tab');
    const chosen = TABS.find((tab) => tab.id === wanted)?.id;
    if (chosen) void this.open(chosen);
  }

  protected override willUpdate(): void {
    // The first word of the session decides where the shell opens, unless the address chose.
    const session = this.session.session;
    if (!this.tab && session) void this.open(session.state === 'signed-in' ? 'payments' : 'settings');
  }

  /** The tabs offered now: the admins' only with their permission. */
  private tabs() {
    return TABS.filter((tab) => !tab.needs || this.session.can(tab.needs));
  }

  protected override firstUpdated(): void {
    performance.mark('kassa-first-render');
  }

  private async open(tab: Tab): Promise<void> {
    this.tab = tab;
    if (!this.loaded.has(tab)) {
      await TABS.find((entry) => entry.id === tab)!.load();
      this.loaded = new Set([...this.loaded, tab]);
    }
    await this.updateComplete;
    // The first view is on screen (bench/extension.ts reads both marks).
    if (!performance.getEntriesByName('kassa-view-ready').length) performance.mark('kassa-view-ready');
  }

  /** Arrow keys move between the tabs, as in any tab list. */
  private readonly onKey = (event: KeyboardEvent): void => {
    const tabs = this.tabs();
    const index = tabs.findIndex((tab) => tab.id === this.tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const next = tabs[(index + step + tabs.length) % tabs.length]!;
    void this.open(next.id);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(`#tab-${next.id}`)?.focus());
  };

  private async openSidePanel(): Promise<void> {
    const window = await chrome.windows.getCurrent();
    if (window.id !== undefined) await chrome.sidePanel.open({ windowId: window.id });
    globalThis.close();
  }

  /** In place of an operator view while signed out: why, and the way to sign in. */
  private signedOut() {
    const { m } = this.locale;
    const session = this.session.session;
    if (!session) return html`<p class="muted">${m.loading}</p>`;
    const refused = session.notice?.reason === 'refused';
    return html`<div class="card stack" id="signed-out">
      ${
        refused
          ? html`<p role="alert" class="error">${m.signedOutAgain} ${m.noticeRefused}</p>`
          : html`<p>${m.signInToUse}</p>`
      }
      <button class="small" @click=${() => void this.open('settings')}>${m.signIn}</button>
    </div>`;
  }

  private view() {
    if (!this.tab || !this.loaded.has(this.tab)) return html`<p class="muted">${this.locale.m.loading}</p>`;
    const tab = TABS.find((entry) => entry.id === this.tab)!;
    if (tab.operator && !this.session.signedIn) return this.signedOut();
    if (tab.needs && !this.session.can(tab.needs))
      return html`<p role="alert" class="error">
        ${fill(this.locale.m.permissionMissing, { permission: `${this.locale.people.permissions[tab.needs]} (${tab.needs})` })}
      </p>`;
    switch (this.tab) {
      case 'payments':
        return html`<kassa-payments-view></kassa-payments-view>`;
      case 'purchases':
        return html`<kassa-purchases-view></kassa-purchases-view>`;
      case 'orders':
        return html`<kassa-orders-view></kassa-orders-view>`;
      case 'approvals':
        return html`<kassa-approvals-view></kassa-approvals-view>`;
      case 'events':
        return html`<kassa-events-view></kassa-events-view>`;
      case 'links':
        return html`<kassa-links-view></kassa-links-view>`;
      case 'team':
        return html`<kassa-team-view></kassa-team-view>`;
      case 'audit':
        return html`<kassa-audit-view></kassa-audit-view>`;
      case 'keys':
        return html`<kassa-merchant-keys-view></kassa-merchant-keys-view>`;
      case 'wallet':
        return html`<kassa-wallet-view></kassa-wallet-view>`;
      case 'settings':
        return html`<kassa-settings-view></kassa-settings-view>`;
    }
    return nothing;
  }

  override render() {
    const { m } = this.locale;
    return html`
      <header>
        <img src="/icons/icon-48.png" alt="" />
        <h1>Kassa</h1>
        ${this.mode === 'popup' ? html`<button class="secondary small" @click=${() => void this.openSidePanel()}>${m.openSidePanel}</button>` : nothing}
      </header>
      <main>
        <div role="tablist" aria-label="Kassa" @keydown=${this.onKey}>
          ${this.tabs().map(
            (tab) =>
              html`<button
                role="tab"
                id="tab-${tab.id}"
                aria-controls="panel"
                aria-selected=${this.tab === tab.id ? 'true' : 'false'}
                tabindex=${this.tab === tab.id ? 0 : -1}
                @click=${() => void this.open(tab.id)}
              >
                ${m[tab.label]}
              </button>`,
          )}
        </div>
        <section role="tabpanel" id="panel" aria-labelledby=${this.tab ? `tab-${this.tab}` : nothing}>
          ${this.view()}
        </section>
      </main>
    `;
  }
}

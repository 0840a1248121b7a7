import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { SANDBOX_TEST_ADDRESS } from '../../lib/sandbox-account.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { AUTO_LOCK_MINUTES, PASSWORD_MIN } from '../channels.ts';
import type { WalletStatus } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { formValues } from './form-values.ts';
import './activity-view.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

const IMPORT_KINDS = [
  { kind: 'privateKey', label: 'privateKey' },
  { kind: 'mnemonic', label: 'recoveryPhrase' },
] as const;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-wallet-view': KassaWalletView;
  }
}

/**
 * The key vault: create or import a key (encrypted with the password before it is stored), unlock,
 * lock, the auto-lock time, the chain, the sites connected. The password and key material go to the
 * service worker only, in a runtime message; a new key's recovery phrase is shown here once.
 */
@customElement('kassa-wallet-view')
export class KassaWalletView extends LitElement {
  static override styles = pageStyles;

  @state() private status?: WalletStatus;
  @state() private chains: ChainEntry[] = [];
  @state() private error?: string;
  @state() private notice?: string;
  @state() private busy = false;
  @state() private importKind: (typeof IMPORT_KINDS)[number]['kind'] = 'privateKey';
  @state() private phrase?: string;
  /** The proxy's environment: on the sandbox, its public test account is offered as the key. */
  @state() private environment: 'sandbox' | 'live' | null = null;
  private readonly locale = new UiLocale(this);

  override connectedCallback(): void {
    super.connectedCallback();
    void this.refresh();
    ask({ kind: 'settings.environment' }).then(
      (environment) => (this.environment = environment),
      () => undefined,
    );
    ask({ kind: 'chains.list' }).then(
      (chains) => (this.chains = chains),
      () => undefined,
    );
  }

  private async refresh(): Promise<void> {
    try {
      this.status = await ask({ kind: 'vault.status' });
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  /** Runs one action; its error (a wrong password, say) is shown as the worker worded it. */
  private async act(work: () => Promise<unknown>, notice?: string): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = undefined;
    this.notice = undefined;
    try {
      await work();
      this.notice = notice;
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
      await this.refresh();
    }
  }

  /** The new password of a create or import form, typed twice. */
  private newPassword(form: HTMLFormElement): string {
    const { password, confirm } = formValues(form, ['password', 'confirm']);
    const { m } = this.locale;
    if (password.length < PASSWORD_MIN) throw new Error(fill(m.passwordShort, { min: String(PASSWORD_MIN) }));
    if (password !== confirm) throw new Error(m.passwordsDiffer);
    return password;
  }

  private readonly create = (event: SubmitEvent): void => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    void this.act(async () => {
      const created = await ask({ kind: 'vault.create', password: this.newPassword(form) });
      this.phrase = created.mnemonic;
    });
  };

  private readonly import = (event: SubmitEvent): void => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const { secret } = formValues(form, ['secret']);
    void this.act(
      () =>
        ask({
          kind: 'vault.import',
          password: this.newPassword(form),
          ...(this.importKind === 'privateKey' ? { privateKey: secret } : { mnemonic: secret }),
        }),
      this.locale.m.keyImported,
    );
  };

  private readonly useSandbox = (event: SubmitEvent): void => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    void this.act(
      () => ask({ kind: 'vault.importSandbox', password: this.newPassword(form) }),
      this.locale.m.sandboxReady,
    );
  };

  private readonly unlock = (event: SubmitEvent): void => {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).querySelector<HTMLInputElement>('[name=password]')!;
    const password = input.value;
    input.value = '';
    void this.act(() => ask({ kind: 'vault.unlock', password }));
  };

  private readonly removeKey = (event: SubmitEvent): void => {
    event.preventDefault();
    const { password } = formValues(event.target as HTMLFormElement, ['password']);
    void this.act(() => ask({ kind: 'vault.remove', password }), this.locale.m.keyRemoved);
  };

  private readonly setAutoLock = (event: SubmitEvent): void => {
    event.preventDefault();
    const minutes = Number(formValues(event.target as HTMLFormElement, ['minutes']).minutes);
    void this.act(
      () => ask({ kind: 'vault.autoLock', minutes }),
      fill(this.locale.m.autoLockSaved, { minutes: String(minutes) }),
    );
  };

  /** The two fields of a new password. */
  private newPasswordFields() {
    const { m } = this.locale;
    return html`<label>${m.password} <input name="password" type="password" autocomplete="new-password" /></label>
      <label>${m.repeatPassword} <input name="confirm" type="password" autocomplete="new-password" /></label>`;
  }

  private empty() {
    const { m } = this.locale;
    return html`
      <h2>${m.walletTitle}</h2>
      <p>${m.walletIntro}</p>
      ${this.environment === 'sandbox' ? this.sandboxForm() : nothing}
      <form aria-label=${m.createForm} class="card" novalidate @submit=${this.create}>
        <h3>${m.createTitle}</h3>
        ${this.newPasswordFields()}
        <button type="submit">${m.createKey}</button>
      </form>
      <form aria-label=${m.importTitle} class="card" novalidate @submit=${this.import}>
        <h3>${m.importTitle}</h3>
        <div class="row" role="radiogroup" aria-label=${m.importWhat}>
          ${IMPORT_KINDS.map(
            ({ kind, label }) =>
              html`<label class="choice"
                ><input
                  type="radio"
                  name="kind"
                  .checked=${this.importKind === kind}
                  @change=${() => (this.importKind = kind)}
                />
                ${m[label]}</label
              >`,
          )}
        </div>
        <label
          >${this.importKind === 'privateKey' ? m.privateKeyField : m.phraseField}
          <textarea name="secret" rows="2" autocomplete="off" spellcheck="false"></textarea>
        </label>
        ${this.newPasswordFields()}
        <button type="submit">${m.importKey}</button>
      </form>
    `;
  }

  /** On the sandbox: its test account as the key, with a password, in one step. */
  private sandboxForm() {
    const { m } = this.locale;
    const [before, after] = m.sandboxBody.split('{address}');
    return html`<form aria-label=${m.sandboxTitle} class="card" novalidate @submit=${this.useSandbox}>
      <h3>${m.sandboxTitle}</h3>
      <p>${before}<span class="mono">${SANDBOX_TEST_ADDRESS}</span>${after}</p>
      ${this.newPasswordFields()}
      <button type="submit">${m.useSandbox}</button>
    </form>`;
  }

  private locked(status: WalletStatus) {
    const { m } = this.locale;
    return html`
      <h2>${m.walletTitle} <span class="badge">${m.locked}</span></h2>
      <p class="mono" id="address">${status.address}</p>
      <form aria-label=${m.unlock} @submit=${this.unlock}>
        <label>${m.password} <input name="password" type="password" autocomplete="current-password" /></label>
        <button type="submit" aria-disabled=${this.busy ? 'true' : 'false'}>${m.unlock}</button>
      </form>
      ${status.retryInSeconds > 0 ? html`<p class="muted">${fill(m.retryIn, { seconds: String(status.retryInSeconds) })}</p>` : nothing}
      <kassa-activity-view></kassa-activity-view>
      ${this.removal()}
    `;
  }

  private removal() {
    const { m } = this.locale;
    return html`<details>
      <summary>${m.removeKey}</summary>
      <form aria-label=${m.removeKey} @submit=${this.removeKey}>
        <p>${m.removeBody}</p>
        <label>${m.password} <input name="password" type="password" autocomplete="current-password" /></label>
        <button type="submit" class="danger">${m.removeKey}</button>
      </form>
    </details>`;
  }

  /** Sites with a button each (disconnect, unblock), or "None.". */
  private sites(
    origins: string[],
    action: string,
    actionLabel: string,
    kind: 'connections.revoke' | 'connections.unblock',
  ) {
    if (!origins.length) return html`<p class="muted">${this.locale.m.none}</p>`;
    return html`<ul>
      ${origins.map(
        (origin) =>
          html`<li>
            <bdi>${origin}</bdi>
            <button
              class="secondary small"
              aria-label=${fill(actionLabel, { origin })}
              @click=${() => void this.act(() => ask({ kind, origin }))}
            >
              ${action}
            </button>
          </li>`,
      )}
    </ul>`;
  }

  private unlocked(status: WalletStatus) {
    const { m } = this.locale;
    return html`
      <h2>${m.walletTitle} <span class="badge">${m.unlocked}</span></h2>
      <p class="mono" id="address">${status.address}</p>
      ${
        this.phrase
          ? html`<div class="card" role="region" aria-label=${m.recoveryPhrase}>
              <h3>${m.phraseTitle}</h3>
              <p>${m.phraseBody}</p>
              <p class="mono" id="phrase">${this.phrase}</p>
              <button class="small" @click=${() => (this.phrase = undefined)}>${m.phraseDone}</button>
            </div>`
          : nothing
      }
      <div class="row">
        <label
          >${m.chain}
          <select
            @change=${(event: Event) => {
              const chainId = Number((event.target as HTMLSelectElement).value);
              void this.act(() => ask({ kind: 'wallet.switchChain', chainId }));
            }}
          >
            ${this.chains.map((chain) => html`<option value=${chain.chainId} ?selected=${chain.chainId === status.chainId}>${chain.name} (${chain.chainId})</option>`)}
          </select>
        </label>
        <button class="secondary" @click=${() => void this.act(() => ask({ kind: 'vault.lock' }))}>${m.lockNow}</button>
      </div>
      <form class="row" aria-label=${m.autoLockForm} @submit=${this.setAutoLock}>
        <label
          >${m.lockAfter}
          <input
            name="minutes"
            type="number"
            min=${AUTO_LOCK_MINUTES.min}
            max=${AUTO_LOCK_MINUTES.max}
            .value=${String(status.autoLockMinutes)}
        /></label>
        <button type="submit" class="secondary">${m.save}</button>
      </form>
      <kassa-activity-view></kassa-activity-view>
      <h3>${m.connectedSites}</h3>
      ${this.sites(status.connectedOrigins, m.disconnect, m.disconnectSite, 'connections.revoke')}
      ${
        status.blockedOrigins.length
          ? html`<h3>${m.blockedSites}</h3>
              ${this.sites(status.blockedOrigins, m.unblock, m.unblockSite, 'connections.unblock')}`
          : nothing
      }
      ${this.removal()}
    `;
  }

  override render() {
    const status = this.status;
    return html`
      ${!status ? html`<p class="muted">${this.locale.m.loading}</p>` : status.state === 'empty' ? this.empty() : status.state === 'locked' ? this.locked(status) : this.unlocked(status)}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
    `;
  }
}

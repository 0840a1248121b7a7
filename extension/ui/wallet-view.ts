import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { AUTO_LOCK_MINUTES, PASSWORD_MIN } from '../channels.ts';
import type { CreatedKey, WalletStatus } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { formValues } from './form-values.ts';
import { pageStyles } from './styles.ts';

const IMPORT_KINDS = [
  { kind: 'privateKey', label: 'Private key' },
  { kind: 'mnemonic', label: 'Recovery phrase' },
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

  override connectedCallback(): void {
    super.connectedCallback();
    void this.refresh();
    ask<ChainEntry[]>({ kind: 'chains.list' }).then(
      (chains) => (this.chains = chains),
      () => undefined,
    );
  }

  private async refresh(): Promise<void> {
    try {
      this.status = await ask<WalletStatus>({ kind: 'vault.status' });
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
    if (password.length < PASSWORD_MIN) throw new Error(`The password must be at least ${PASSWORD_MIN} characters`);
    if (password !== confirm) throw new Error('The two passwords differ');
    return password;
  }

  private readonly create = (event: SubmitEvent): void => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    void this.act(async () => {
      const created = await ask<CreatedKey>({ kind: 'vault.create', password: this.newPassword(form) });
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
      'Key imported.',
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
    void this.act(() => ask({ kind: 'vault.remove', password }), 'The key was removed from this browser.');
  };

  private readonly setAutoLock = (event: SubmitEvent): void => {
    event.preventDefault();
    const minutes = Number(formValues(event.target as HTMLFormElement, ['minutes']).minutes);
    void this.act(
      () => ask({ kind: 'vault.autoLock', minutes }),
      `Kassa now locks after ${minutes} minutes without use.`,
    );
  };

  /** The two fields of a new password. */
  private newPasswordFields() {
    return html`<label>Password <input name="password" type="password" autocomplete="new-password" /></label>
      <label>Repeat the password <input name="confirm" type="password" autocomplete="new-password" /></label>`;
  }

  private empty() {
    return html`
      <h2>Wallet</h2>
      <p>
        Kassa keeps one key, encrypted with your password, in this browser. It signs Kassa transfers that you approve.
      </p>
      <form aria-label="Create a key" class="card" novalidate @submit=${this.create}>
        <h3>Create a new key</h3>
        ${this.newPasswordFields()}
        <button type="submit">Create key</button>
      </form>
      <form aria-label="Import a key" class="card" novalidate @submit=${this.import}>
        <h3>Import a key</h3>
        <div class="row" role="radiogroup" aria-label="What to import">
          ${IMPORT_KINDS.map(
            ({ kind, label }) =>
              html`<label class="choice"
                ><input
                  type="radio"
                  name="kind"
                  .checked=${this.importKind === kind}
                  @change=${() => (this.importKind = kind)}
                />
                ${label}</label
              >`,
          )}
        </div>
        <label
          >${this.importKind === 'privateKey' ? 'Private key (64 hex digits)' : 'Recovery phrase (12 to 24 words)'}
          <textarea name="secret" rows="2" autocomplete="off" spellcheck="false"></textarea>
        </label>
        ${this.newPasswordFields()}
        <button type="submit">Import key</button>
      </form>
    `;
  }

  private locked(status: WalletStatus) {
    return html`
      <h2>Wallet <span class="badge">Locked</span></h2>
      <p class="mono" id="address">${status.address}</p>
      <form aria-label="Unlock" @submit=${this.unlock}>
        <label>Password <input name="password" type="password" autocomplete="current-password" /></label>
        <button type="submit" aria-disabled=${this.busy ? 'true' : 'false'}>Unlock</button>
      </form>
      ${status.retryInSeconds > 0 ? html`<p class="muted">Next try allowed in ${status.retryInSeconds} s.</p>` : nothing}
      ${this.removal()}
    `;
  }

  private removal() {
    return html`<details>
      <summary>Remove key</summary>
      <form aria-label="Remove key" @submit=${this.removeKey}>
        <p>
          Removes the encrypted key from this browser. Without its recovery phrase or private key it is gone for good.
        </p>
        <label>Password <input name="password" type="password" autocomplete="current-password" /></label>
        <button type="submit" class="danger">Remove key</button>
      </form>
    </details>`;
  }

  private unlocked(status: WalletStatus) {
    return html`
      <h2>Wallet <span class="badge">Unlocked</span></h2>
      <p class="mono" id="address">${status.address}</p>
      ${
        this.phrase
          ? html`<div class="card" role="region" aria-label="Recovery phrase">
              <h3>Your recovery phrase</h3>
              <p>Write these words down, in order, and keep them offline. They are shown only now.</p>
              <p class="mono" id="phrase">${this.phrase}</p>
              <button class="small" @click=${() => (this.phrase = undefined)}>I have written it down</button>
            </div>`
          : nothing
      }
      <div class="row">
        <label
          >Chain
          <select
            @change=${(event: Event) => {
              const chainId = Number((event.target as HTMLSelectElement).value);
              void this.act(() => ask({ kind: 'wallet.switchChain', chainId }));
            }}
          >
            ${this.chains.map((chain) => html`<option value=${chain.chainId} ?selected=${chain.chainId === status.chainId}>${chain.name} (${chain.chainId})</option>`)}
          </select>
        </label>
        <button class="secondary" @click=${() => void this.act(() => ask({ kind: 'vault.lock' }))}>Lock now</button>
      </div>
      <form class="row" aria-label="Auto-lock" @submit=${this.setAutoLock}>
        <label
          >Lock after (minutes without use)
          <input
            name="minutes"
            type="number"
            min=${AUTO_LOCK_MINUTES.min}
            max=${AUTO_LOCK_MINUTES.max}
            .value=${String(status.autoLockMinutes)}
        /></label>
        <button type="submit" class="secondary">Save</button>
      </form>
      <h3>Connected sites</h3>
      ${
        status.connectedOrigins.length
          ? html`<ul>
              ${status.connectedOrigins.map(
                (origin) =>
                  html`<li>
                    ${origin}
                    <button
                      class="secondary small"
                      aria-label="Disconnect ${origin}"
                      @click=${() => void this.act(() => ask({ kind: 'connections.revoke', origin }))}
                    >
                      Disconnect
                    </button>
                  </li>`,
              )}
            </ul>`
          : html`<p class="muted">None.</p>`
      }
      ${this.removal()}
    `;
  }

  override render() {
    const status = this.status;
    return html`
      ${!status ? html`<p class="muted">Loading…</p>` : status.state === 'empty' ? this.empty() : status.state === 'locked' ? this.locked(status) : this.unlocked(status)}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
    `;
  }
}

import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { MERCHANT_SCOPES, type MerchantKeyView, type MerchantScope } from '../../schemas/merchant-keys.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import './shown-once.ts';
import { choiceGroup, fittedTable, pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-merchant-keys-view': KassaMerchantKeysView;
  }
}

/**
 * The scopes ticked for a new key: what a shop's server needs to take payments. Making payment links
 * is asked for by ticking it, so that a key handed to a checkout backend cannot make links by default.
 */
const TICKED: readonly MerchantScope[] = ['checkouts:create', 'checkouts:read'];

/** How long a rolled key keeps working beside the new one, in seconds (24 hours first, the proxy's default). */
const ROLL_OVERLAPS = [86_400, 3_600, 604_800, 2_592_000, 0] as const;

/**
 * The admins' merchant keys (`merchant_keys:manage`): each key's name, scopes, state, expiry and last
 * use, never its secret. _Make a key_ with a name, scopes and an optional expiry, its secret shown
 * once; per key, _Roll_ (a new key, the old one working for the time chosen, the new secret shown
 * once) and _Revoke_ after a confirmation. The proxy judges and audits each.
 */
@customElement('kassa-merchant-keys-view')
export class KassaMerchantKeysView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    choiceGroup,
    css`
      th:nth-child(2) {
        inline-size: 30%;
      }
      th:nth-child(3) {
        inline-size: 30%;
      }
    `,
  ];

  /** The secret of the key just made or rolled, shown this once. */
  @state() private shown?: { name: string; secret: string };
  /** The key whose revocation waits for a confirmation. */
  @state() private revoking?: string;
  @state() private problems: { name?: string; scopes?: string; days?: string } = {};
  @state() private formError?: string;
  @state() private notice?: string;
  private readonly locale = new UiLocale(this);
  private readonly list = new ListController<MerchantKeyView, ''>(this, {
    filter: '',
    load: async () => (await ask({ kind: 'merchantKeys.list' })).keys,
    describe: (error) => refusalText(error, this.locale),
  });

  private readonly make = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const { name, days } = formValues(form, ['name', 'days']);
    const scopes = new FormData(form).getAll('scope').map(String) as MerchantScope[];
    const expiresInDays = days.trim() ? Number(days) : undefined;
    const { integrations: i } = this.locale;
    this.formError = this.shown = this.notice = undefined;
    this.problems = {
      ...(name.trim() ? {} : { name: i.problemName }),
      ...(scopes.length ? {} : { scopes: i.problemScopes }),
      ...(expiresInDays === undefined ||
      (Number.isInteger(expiresInDays) && expiresInDays >= 1 && expiresInDays <= 3650)
        ? {}
        : { days: i.problemDays }),
    };
    const first = (['name', 'scopes', 'days'] as const).find((field) => this.problems[field]);
    if (first) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`form [name=${first === 'scopes' ? 'scope' : first}]`)?.focus();
      return;
    }
    try {
      const { key, secret } = await ask({ kind: 'merchantKeys.create', name: name.trim(), scopes, expiresInDays });
      this.shown = { name: key.name, secret };
      form.reset();
      await this.list.refresh();
    } catch (error) {
      this.formError = refusalText(error, this.locale);
    }
  };

  private roll(key: MerchantKeyView, submit: SubmitEvent): Promise<void> {
    submit.preventDefault();
    const expiresInSeconds = Number(formValues(submit.target as HTMLFormElement, ['overlap']).overlap);
    const { integrations: i, language } = this.locale;
    this.shown = undefined;
    return this.list.act(
      () => ask({ kind: 'merchantKeys.roll', id: key.id, expiresInSeconds }),
      ({ secret, key: rolled }) => {
        this.shown = { name: rolled.name, secret };
        const until = expiresInSeconds ? new Date(Date.now() + expiresInSeconds * 1000) : undefined;
        this.notice = until
          ? fill(i.rolledOverlap, { name: key.name, time: until.toLocaleString(language) })
          : fill(i.rolledNow, { name: key.name });
      },
    );
  }

  private revoke(key: MerchantKeyView): Promise<void> {
    this.shown = undefined;
    return this.list.act(
      () => ask({ kind: 'merchantKeys.revoke', id: key.id }),
      () => {
        this.revoking = undefined;
        this.notice = fill(this.locale.integrations.revoked, { name: key.name });
      },
    );
  }

  /** An active key's actions: roll with the old key's overlap, revoke after a confirmation. */
  private actions(key: MerchantKeyView) {
    const { m, integrations: i } = this.locale;
    if (this.revoking === key.id)
      return html`<div class="stack" role="group" aria-label=${fill(i.revokeOf, { name: key.name })}>
        <p>${fill(i.confirmRevoke, { name: key.name })}</p>
        <div class="row">
          <button class="danger small" @click=${() => void this.revoke(key)}>${m.confirm}</button>
          <button class="secondary small" @click=${() => (this.revoking = undefined)}>${m.cancel}</button>
        </div>
      </div>`;
    return html`<form
        class="row"
        aria-label=${fill(i.rollOf, { name: key.name })}
        @submit=${(event: SubmitEvent) => void this.roll(key, event)}
      >
        <label
          >${i.oldKeyWorks}
          <select name="overlap">
            ${ROLL_OVERLAPS.map((seconds) => html`<option value=${seconds}>${i.rollChoices[seconds]}</option>`)}
          </select>
        </label>
        <button type="submit" class="secondary small">${i.roll}</button>
      </form>
      <button
        class="secondary small"
        aria-label=${fill(i.revokeOf, { name: key.name })}
        @click=${() => (this.revoking = key.id)}
      >
        ${i.revoke}
      </button>`;
  }

  private row(key: MerchantKeyView) {
    const { integrations: i, language } = this.locale;
    const when = (iso: string | null) =>
      iso ? new Date(iso).toLocaleString(language, { dateStyle: 'short', timeStyle: 'short' }) : i.never;
    return html`<tr data-key=${key.id} data-state=${key.state}>
      <td>
        <strong>${outsideText(key.name)}</strong><br /><span class="mono muted">${key.hint}</span>
        ${key.state === 'active' ? html`<div class="stack">${this.actions(key)}</div>` : nothing}
      </td>
      <td>${key.scopes.map((scope) => html`<span class="mono">${scope}</span><br />`)}</td>
      <td class="status">
        ${i.keyStates[key.state]}<br /><span class="muted">${i.expires}: ${when(key.expiresAt)}</span><br /><span
          class="muted"
          >${i.lastUsed}: ${when(key.lastUsedAt)}</span
        >
      </td>
    </tr>`;
  }

  private problem(name: 'name' | 'scopes' | 'days') {
    const problem = this.problems[name];
    return problem ? html`<span class="error" id="${name}-problem">${problem}</span>` : nothing;
  }

  private form() {
    const { integrations: i } = this.locale;
    const invalid = (name: 'name' | 'scopes' | 'days') => (this.problems[name] ? 'true' : 'false');
    const described = (name: 'name' | 'scopes' | 'days') => (this.problems[name] ? `${name}-problem` : nothing);
    return html`<details>
      <summary>${i.newKey}</summary>
      <form aria-label=${i.newKey} novalidate @submit=${this.make}>
        <div class="stack">
          <label
            >${i.name}
            <input name="name" maxlength="100" aria-invalid=${invalid('name')} aria-describedby=${described('name')}
          /></label>
          ${this.problem('name')}
        </div>
        <fieldset aria-invalid=${invalid('scopes')} aria-describedby=${described('scopes')}>
          <legend>${i.scopes}</legend>
          ${MERCHANT_SCOPES.map(
            (scope) =>
              html`<label class="choice"
                ><input type="checkbox" name="scope" value=${scope} ?checked=${TICKED.includes(scope)} />
                ${i.scopeNames[scope]}
                <span class="mono muted">(${scope})</span></label
              >`,
          )}
        </fieldset>
        ${this.problem('scopes')}
        <div class="stack">
          <label
            >${i.expiresInDays}
            <input
              name="days"
              inputmode="numeric"
              maxlength="4"
              aria-invalid=${invalid('days')}
              aria-describedby=${described('days')}
          /></label>
          ${this.problem('days')}
        </div>
        ${this.formError ? html`<p role="alert" class="error" id="make-error">${this.formError}</p>` : nothing}
        <button type="submit">${i.make}</button>
      </form>
    </details>`;
  }

  override render() {
    const { m, integrations: i } = this.locale;
    return html`
      <div class="row">
        <h2>${i.keys}</h2>
        <button class="secondary small" @click=${() => void this.list.refresh()}>${m.refresh}</button>
      </div>
      <p class="muted">${i.keysIntro}</p>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${
        this.shown
          ? html`<kassa-shown-once
              label=${fill(i.keySecretOf, { name: this.shown.name })}
              text=${fill(i.keySecretOnce, { name: this.shown.name })}
              .value=${this.shown.secret}
              copy-label=${i.copy}
              copied-label=${i.copied}
            ></kassa-shown-once>`
          : nothing
      }
      ${this.list.render({
        label: i.keys,
        loading: m.loading,
        headings: [i.name, i.scopes, i.state],
        row: (key) => this.row(key),
        empty: () => i.noKeys,
      })}
      ${this.form()}
    `;
  }
}

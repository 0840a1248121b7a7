import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ROLES, type CredentialView, type OperatorView, type Role } from '../../schemas/operators.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { outsideText } from './outside-text.ts';
import { paneHeader } from './pane-header.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

export interface TeamChangedDetail {
  operatorId: string;
  /** Set when the person was removed: what to tell, since their pane goes with them. */
  removed?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-team-member': KassaTeamMember;
  }
  interface HTMLElementEventMap {
    'kassa-team-changed': CustomEvent<TeamChangedDetail>;
  }
}

/**
 * One person of the team, as an admin manages them: another role, suspended (nothing of theirs works
 * until reactivated) or active again, removed after a confirmation; and their sessions, devices and
 * API tokens (with `sessions:manage`), each revocable while it works. Changes are the proxy's to
 * judge: its refusals (the last admin, say) are shown in its words.
 *
 * @fires kassa-team-changed - The person was changed or removed (`TeamChangedDetail`).
 * @fires kassa-close - The Close button was pressed.
 */
@customElement('kassa-team-member')
export class KassaTeamMember extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      ul {
        padding: 0;
        margin: 0;
        list-style: none;
      }
    `,
  ];

  /** The person, as the team list has them; their sessions are read whenever it changes. */
  @property({ attribute: false }) operator?: OperatorView;
  @state() private sessions?: CredentialView[];
  @state() private confirming = false;
  @state() private notice?: string;
  @state() private error?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('operator') as OperatorView | undefined;
    if (changed.has('operator') && before?.operatorId !== this.operator?.operatorId) {
      this.confirming = false;
      this.notice = this.error = this.sessions = undefined;
      void this.loadSessions();
    }
  }

  private async loadSessions(): Promise<void> {
    const operatorId = this.operator?.operatorId;
    if (!operatorId || !this.session.can('sessions:manage')) return;
    try {
      const { credentials } = await ask({ kind: 'team.sessions', operatorId });
      if (operatorId === this.operator?.operatorId) this.sessions = credentials;
    } catch (error) {
      this.error = refusalText(error, this.locale);
    }
  }

  private async act(action: () => Promise<unknown>, notice: string, removes = false): Promise<void> {
    const operatorId = this.operator!.operatorId;
    this.busy = true;
    this.error = this.notice = undefined;
    try {
      await action();
      this.notice = notice;
      this.confirming = false;
      const detail: TeamChangedDetail = { operatorId, ...(removes ? { removed: notice } : {}) };
      this.dispatchEvent(new CustomEvent('kassa-team-changed', { detail, bubbles: true, composed: true }));
      if (!removes) await this.loadSessions();
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  private readonly changeRole = (event: SubmitEvent): void => {
    event.preventDefault();
    const operator = this.operator!;
    const role = formValues(event.target as HTMLFormElement, ['role']).role as Role;
    const { people } = this.locale;
    void this.act(
      () => ask({ kind: 'team.update', operatorId: operator.operatorId, role }),
      fill(people.roleChanged, { name: operator.name, role: people.roles[role] }),
    );
  };

  private setState(state: 'active' | 'suspended'): Promise<void> {
    const operator = this.operator!;
    const { people } = this.locale;
    return this.act(
      () => ask({ kind: 'team.update', operatorId: operator.operatorId, state }),
      fill(state === 'suspended' ? people.suspendedNotice : people.reactivatedNotice, { name: operator.name }),
    );
  }

  private credential(credential: CredentialView) {
    const { people, language } = this.locale;
    const when = (iso: string | null) =>
      iso ? new Date(iso).toLocaleString(language, { dateStyle: 'short', timeStyle: 'short' }) : people.never;
    const name = credential.name ?? people.credentialKinds[credential.kind];
    return html`<li class="card" data-credential=${credential.credentialId}>
      <strong>${people.credentialKinds[credential.kind]}</strong>: ${outsideText(name)}
      ${credential.current ? html` <span class="muted">(${people.thisDevice})</span>` : nothing} <br /><span
        class="muted"
        >${people.lastUsed}: ${when(credential.lastUsedAt)} · ${people.expires}: ${when(credential.expiresAt)}</span
      >
      ${
        credential.live
          ? html`<br /><button
                class="secondary small"
                aria-label=${fill(people.revokeWhat, { name })}
                ?disabled=${this.busy}
                @click=${() =>
                  void this.act(
                    () => ask({ kind: 'team.revoke', credentialId: credential.credentialId }),
                    fill(people.revokedNotice, { name }),
                  )}
              >
                ${people.revoke}
              </button>`
          : html` <span class="muted">(${people.ended})</span>`
      }
    </li>`;
  }

  override render() {
    const operator = this.operator;
    if (!operator) return nothing;
    const { m, people } = this.locale;
    const suspended = operator.state === 'suspended';
    return html`<section class="card" aria-label=${fill(people.operatorLabel, { name: operator.name })}>
      ${paneHeader(this, outsideText(operator.name), m.close)}
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error" id="member-error">${this.error}</p>` : nothing}
      <dl>
        <dt>${m.email}</dt>
        <dd>${outsideText(operator.email)}</dd>
        <dt>${m.state}</dt>
        <dd class="status">${people.operatorStates[operator.state]}</dd>
      </dl>
      <form class="row" aria-label=${people.saveRole} @submit=${this.changeRole}>
        <label
          >${m.role}
          <select name="role">
            ${ROLES.map((role) => html`<option value=${role} ?selected=${role === operator.role}>${people.roles[role]}</option>`)}
          </select>
        </label>
        <button type="submit" class="small" ?disabled=${this.busy}>${people.saveRole}</button>
      </form>
      <div class="row">
        <button
          class="secondary small"
          ?disabled=${this.busy}
          @click=${() => void this.setState(suspended ? 'active' : 'suspended')}
        >
          ${suspended ? people.reactivate : people.suspend}
        </button>
        ${
          this.confirming
            ? nothing
            : html`<button class="secondary small" @click=${() => (this.confirming = true)}>${people.remove}</button>`
        }
      </div>
      ${
        this.confirming
          ? html`<div class="stack" role="group" aria-label=${people.remove}>
              <p>${fill(people.confirmRemove, { name: operator.name })}</p>
              <div class="row">
                <button
                  class="danger small"
                  ?disabled=${this.busy}
                  @click=${() =>
                    void this.act(
                      () => ask({ kind: 'team.remove', operatorId: operator.operatorId }),
                      fill(people.removedNotice, { name: operator.name }),
                      true,
                    )}
                >
                  ${m.confirm}
                </button>
                <button class="secondary small" @click=${() => (this.confirming = false)}>${m.cancel}</button>
              </div>
            </div>`
          : nothing
      }
      ${
        this.sessions
          ? html`<h3>${people.sessions}</h3>
              ${
                this.sessions.length
                  ? html`<ul class="stack">
                      ${this.sessions.map((each) => this.credential(each))}
                    </ul>`
                  : html`<p class="muted">${m.none}</p>`
              }`
          : nothing
      }
    </section>`;
  }
}

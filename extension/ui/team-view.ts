import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ROLES, type OperatorView, type Role } from '../../schemas/operators.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { ListController } from './list-controller.ts';
import { outsideText } from './outside-text.ts';
import { refusalText } from './refusal.ts';
import { SessionController } from './session-controller.ts';
import './shown-once.ts';
import { fittedTable, pageStyles, rowLinks } from './styles.ts';
import './team-member.ts';
import type { TeamChangedDetail } from './team-member.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-team-view': KassaTeamView;
  }
}

interface Invitation {
  name: string;
  url: string;
  expiresAt: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The admins' team (`operators:manage`): everyone with their role and state; _Invite a person_ with
 * a name, an e-mail and a role, whose one-time invitation link is shown once, to copy and send. A row
 * opens the person (team-member.ts): another role, suspend or reactivate, remove, their sessions and
 * tokens. The proxy judges each change (the last admin stays, in its words).
 */
@customElement('kassa-team-view')
export class KassaTeamView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    css`
      th:nth-child(2),
      th:nth-child(3) {
        inline-size: 26%;
      }
    `,
  ];

  @state() private selected?: string;
  @state() private invitation?: Invitation;
  @state() private problems: { name?: string; email?: string } = {};
  @state() private formError?: string;
  @state() private removed?: string;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);
  private readonly list = new ListController<OperatorView, ''>(this, {
    filter: '',
    load: async () => (await ask({ kind: 'team.list' })).operators,
    describe: (error) => refusalText(error, this.locale),
  });

  private readonly invite = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const { name, email, role } = formValues(formElement, ['name', 'email', 'role']);
    const { people } = this.locale;
    this.formError = this.invitation = undefined;
    this.problems = {
      ...(name.trim() ? {} : { name: people.problemPersonName }),
      ...(EMAIL.test(email.trim()) ? {} : { email: people.problemEmail }),
    };
    const first = (['name', 'email'] as const).find((field) => this.problems[field]);
    if (first) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`form [name=${first}]`)?.focus();
      return;
    }
    try {
      const invited = await ask({
        kind: 'team.invite',
        name: name.trim(),
        email: email.trim(),
        role: role as Role,
      });
      this.invitation = { name: invited.operator.name, url: invited.invitationUrl, expiresAt: invited.expiresAt };
      formElement.reset();
      await this.list.refresh();
    } catch (error) {
      this.formError = refusalText(error, this.locale);
    }
  };

  /** A change in the open person's pane: the list follows; a removal is told here, their pane gone. */
  private readonly changed = (event: CustomEvent<TeamChangedDetail>): void => {
    if (event.detail.removed) {
      this.selected = undefined;
      this.removed = event.detail.removed;
    }
    void this.list.refresh();
  };

  /** The invitation link, shown this once. */
  private invitationCard(invitation: Invitation) {
    const { people, language } = this.locale;
    return html`<kassa-shown-once
      id="invitation"
      label=${fill(people.invitationFor, { name: invitation.name })}
      text=${fill(people.invitationOnce, {
        name: invitation.name,
        time: new Date(invitation.expiresAt).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' }),
      })}
      .value=${invitation.url}
      copy-label=${people.copyLink}
      copied-label=${people.linkCopied}
    ></kassa-shown-once>`;
  }

  private field(name: 'name' | 'email', label: string, type: string) {
    const problem = this.problems[name];
    return html`<div class="stack">
      <label
        >${label}
        <input
          name=${name}
          type=${type}
          maxlength=${name === 'name' ? 100 : 254}
          aria-invalid=${problem ? 'true' : 'false'}
          aria-describedby=${problem ? `${name}-problem` : nothing}
      /></label>
      ${problem ? html`<span class="error" id="${name}-problem">${problem}</span>` : nothing}
    </div>`;
  }

  private row(operator: OperatorView) {
    const { people } = this.locale;
    const me = operator.operatorId === this.session.session?.operator?.operatorId;
    return html`<tr
      data-operator=${operator.operatorId}
      aria-selected=${this.selected === operator.operatorId ? 'true' : 'false'}
    >
      <td>
        <button
          aria-label=${fill(people.operatorLabel, { name: operator.name })}
          @click=${() => {
            this.selected = operator.operatorId;
            this.removed = undefined;
          }}
        >
          ${outsideText(operator.name)}
        </button>
        ${me ? html` <span class="muted">(${people.you})</span>` : nothing}
        <br /><span class="muted">${outsideText(operator.email)}</span>
      </td>
      <td>${people.roles[operator.role]}</td>
      <td class="status">${people.operatorStates[operator.state]}</td>
    </tr>`;
  }

  override render() {
    const { m, people } = this.locale;
    const selected = this.list.items.find((operator) => operator.operatorId === this.selected);
    return html`
      <div class="row">
        <h2>${people.team}</h2>
        <button class="secondary small" @click=${() => void this.list.refresh()}>${m.refresh}</button>
      </div>
      ${this.removed ? html`<p role="status" class="ok">${this.removed}</p>` : nothing}
      ${this.invitation ? this.invitationCard(this.invitation) : nothing}
      ${
        selected
          ? html`<kassa-team-member
              .operator=${selected}
              @kassa-close=${() => (this.selected = undefined)}
              @kassa-team-changed=${this.changed}
            ></kassa-team-member>`
          : nothing
      }
      ${this.list.render({
        label: people.team,
        loading: m.loading,
        headings: [people.person, m.role, m.state],
        row: (operator) => this.row(operator),
        empty: () => m.none,
      })}
      <details>
        <summary>${people.inviteTitle}</summary>
        <form aria-label=${people.inviteTitle} novalidate @submit=${this.invite}>
          ${this.field('name', m.name, 'text')} ${this.field('email', m.email, 'email')}
          <label
            >${m.role}
            <select name="role">
              ${ROLES.map((role) => html`<option value=${role}>${people.roles[role]}</option>`)}
            </select>
          </label>
          ${this.formError ? html`<p role="alert" class="error" id="invite-error">${this.formError}</p>` : nothing}
          <button type="submit">${people.invite}</button>
        </form>
      </details>
    `;
  }
}

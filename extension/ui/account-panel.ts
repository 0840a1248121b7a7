import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { OperatorSessionView } from '../operator-messages.ts';
import { ask, messageOf } from './client.ts';
import { SessionController } from './session-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-account-panel': KassaAccountPanel;
  }
}

/**
 * Settings' account section: the person's own sign-in on the configured proxy. Signed out, why (a
 * revocation, a denied or expired code, the retired shared token) and _Sign in_; signing in, the code
 * in large letters to compare with the proxy's page, which _Open the approval page_ opens in a tab;
 * signed in, whose device this is (name, e-mail, role), until when, and _Sign out_. The token itself
 * never reaches the page.
 */
@customElement('kassa-account-panel')
export class KassaAccountPanel extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
        margin-block-start: 1rem;
        border-block-start: 1px solid var(--_border);
        padding-block-start: 0.5rem;
      }
      #user-code {
        font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
        font-size: 2rem;
        font-weight: 700;
        letter-spacing: 0.12em;
        text-align: center;
        margin: 0.5rem 0;
        padding: 0.5rem;
        border: 2px solid var(--_primary);
        border-radius: calc(var(--_radius) * 0.67);
      }
    `,
  ];

  @state() private message?: { tone: 'ok' | 'error'; text: string };
  @state() private busy = false;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  private async act(
    kind: 'session.signIn' | 'session.cancelSignIn' | 'session.openApprovalPage' | 'session.signOut',
    done?: string,
  ): Promise<void> {
    this.busy = true;
    this.message = undefined;
    try {
      await ask({ kind });
      if (done) this.message = { tone: 'ok', text: done };
    } catch (error) {
      this.message = { tone: 'error', text: messageOf(error) };
    } finally {
      this.busy = false;
    }
  }

  private when(iso: string | number): string {
    return new Date(iso).toLocaleString(this.locale.language, { dateStyle: 'medium', timeStyle: 'short' });
  }

  /** Why there is no session, in words. */
  private notice(session: OperatorSessionView) {
    const { m } = this.locale;
    const notice = session.notice;
    if (!notice) return nothing;
    const words = {
      refused: `${m.signedOutAgain} ${m.noticeRefused}`,
      denied: m.noticeDenied,
      'code-expired': m.noticeCodeExpired,
      'token-retired': m.noticeTokenRetired,
      'proxy-changed': fill(m.noticeProxyChanged, { proxy: notice.proxyUrl ?? '' }),
      failed: fill(m.noticeFailed, { detail: notice.detail ?? '' }),
    }[notice.reason];
    return html`<p role="alert" class="card error" id="session-notice">${words}</p>`;
  }

  private signedOut(session: OperatorSessionView) {
    const { m } = this.locale;
    const ready = Boolean(session.proxyUrl);
    return html`${this.notice(session)}
      <p>${m.signInIntro}</p>
      ${ready ? nothing : html`<p class="muted" id="sign-in-hint">${m.signInFirstSave}</p>`}
      <button
        aria-disabled=${ready && !this.busy ? 'false' : 'true'}
        aria-describedby=${ready ? nothing : 'sign-in-hint'}
        @click=${() => ready && !this.busy && void this.act('session.signIn')}
      >
        ${m.signIn}
      </button>`;
  }

  private signingIn(signIn: NonNullable<OperatorSessionView['signIn']>) {
    const { m } = this.locale;
    const letters = [...signIn.userCode].join(' ');
    return html`<p>${m.yourCode}</p>
      <p id="user-code" role="img" aria-label=${fill(m.codeLetters, { letters })}>${signIn.userCode}</p>
      <p>${fill(m.codeSteps, { time: this.when(signIn.expiresAt) })}</p>
      <div class="row">
        <button @click=${() => void this.act('session.openApprovalPage')}>${m.openApprovalPage}</button>
        <button class="secondary" @click=${() => void this.act('session.cancelSignIn')}>${m.cancel}</button>
      </div>
      <p class="muted" aria-live="polite">${m.waitingApproval}</p>`;
  }

  private signedIn(operator: NonNullable<OperatorSessionView['operator']>) {
    const { m, people } = this.locale;
    return html`<dl id="signed-in">
        <dt>${m.signedInAs}</dt>
        <dd id="operator-name">${operator.name}</dd>
        <dt>${m.email}</dt>
        <dd>${operator.email}</dd>
        <dt>${m.role}</dt>
        <dd id="operator-role">${people.roles[operator.role]}</dd>
        ${
          operator.expiresAt
            ? html`<dt>${m.signedInUntil}</dt>
                <dd id="expires-at">${this.when(operator.expiresAt)}</dd>`
            : nothing
        }
        ${
          operator.idleExpiresAt
            ? html`<dt>${m.endsIfUnused}</dt>
                <dd>${this.when(operator.idleExpiresAt)}</dd>`
            : nothing
        }
      </dl>
      <button
        class="secondary"
        ?disabled=${this.busy}
        @click=${() => void this.act('session.signOut', m.signedOutDone)}
      >
        ${m.signOut}
      </button>
      <p class="muted">${m.deviceNote}</p>`;
  }

  override render() {
    const { m } = this.locale;
    const session = this.session.session;
    return html`<h2>${m.accountTitle}</h2>
      ${
        !session
          ? html`<p class="muted">${m.loading}</p>`
          : session.state === 'signed-in' && session.operator
            ? this.signedIn(session.operator)
            : session.state === 'signing-in' && session.signIn
              ? this.signingIn(session.signIn)
              : this.signedOut(session)
      }
      <p role="status" class=${this.message?.tone ?? ''}>${this.message?.text ?? nothing}</p>`;
  }
}

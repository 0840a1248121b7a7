/**
 * What each sign-in page shows, rendered on the server in the page's language: signing in, the
 * signed-in person's sessions, passkeys and API tokens, a link's first passkey, and a device's
 * approval. The script (operator-page/) makes the passkey ceremonies and the writes.
 */
import { html, raw } from 'hono/html';
import { ROLES, type CredentialView, type Role } from '../../../schemas/operators.ts';
import type { DeviceAuthorizationRecord, PasskeyRecord } from '../../state/operators.ts';
import { can, roleAtMost } from '../permissions.ts';
import type { OperatorPrincipal } from '../credentials.ts';
import { displayUserCode } from '../device-grant.ts';
import type { Html } from './page-layout.ts';
import { fill, type PageLanguage, type Words } from './words/index.ts';

export interface ViewContext {
  language: PageLanguage;
  words: Words;
}

/** A moment, readable without script (in UTC); the script shows it in the reader's own time zone. */
function when(view: ViewContext, at: string | number | null, fallback: string): Html {
  if (at === null) return html`${fallback}`;
  const date = new Date(at);
  const text = new Intl.DateTimeFormat(view.language, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(date);
  return html`<time datetime="${date.toISOString()}">${text} UTC</time>`;
}

const status = (name: string, notice?: { text: string; tone: 'danger' | 'success' }) =>
  html`<p class="status ${notice?.tone ?? ''}" role="status" data-status="${name}">${notice?.text ?? ''}</p>`;

/** Signing in: a passkey, and the company's provider when one is set up. */
export function signinView(
  view: ViewContext,
  options: { sso: boolean; returnTo: string; userCode?: string; notice?: string },
): Html {
  const { words } = view;
  return html`<section class="surface" aria-labelledby="signin-heading">
    <h1 id="signin-heading">${words.signinHeading}</h1>
    ${options.userCode ? html`<p>${fill(words.deviceSigninFirst, { code: options.userCode })}</p>` : ''}
    <p class="muted">${words.signinIntro}</p>
    <div class="actions">
      <button type="button" data-action="signin">${words.signinPasskey}</button>
      ${
        options.sso
          ? html`<form method="post" action="/operator/sso">
              <input type="hidden" name="return_to" value="${options.returnTo}" />
              <button type="submit" class="secondary">${words.signinSso}</button>
            </form>`
          : ''
      }
    </div>
    ${status('signin', options.notice ? { text: options.notice, tone: 'danger' } : undefined)}
  </section>`;
}

export interface AccountLists {
  sessions: CredentialView[];
  tokens: CredentialView[];
  passkeys: PasskeyRecord[];
}

const hidden = (text: string) => html`<span class="visually-hidden">${text}</span>`;

function sessionRows(view: ViewContext, sessions: CredentialView[]): Html {
  const { words } = view;
  return html`${sessions.map(
    (session) =>
      html`<tr>
        <td>
          ${session.kind === 'device' && session.name ? session.name : words.kinds[session.kind]}
          ${session.current ? html` <span class="badge">${words.thisBrowser}</span>` : ''}
          ${session.userAgent ? html`<br /><span class="hint">${session.userAgent.slice(0, 80)}</span>` : ''}
        </td>
        <td>${when(view, session.createdAt, '')}</td>
        <td>${when(view, session.lastUsedAt, words.notYet)}</td>
        <td>${session.ip ?? ''}</td>
        <td>${when(view, session.idleExpiresAt ?? session.expiresAt, '')}</td>
        <td>
          <button
            type="button"
            class="small secondary"
            data-action="revoke"
            data-id="${session.credentialId}"
            data-current="${session.current}"
          >
            ${words.endSession}${hidden(`: ${words.kinds[session.kind]}, ${words.since} ${new Date(session.createdAt).toISOString()}`)}
          </button>
        </td>
      </tr>`,
  )}`;
}

function passkeyRows(view: ViewContext, passkeys: PasskeyRecord[]): Html {
  const { words } = view;
  return html`${passkeys.map(
    (passkey) =>
      html`<tr>
        <td>
          ${passkey.name}<br /><span class="hint">${passkey.backedUp ? words.synced : words.thisDeviceOnly}</span>
        </td>
        <td>${when(view, passkey.createdAt, '')}</td>
        <td>${when(view, passkey.lastUsedAt, words.notYet)}</td>
        <td>
          <button type="button" class="small secondary" data-action="remove-passkey" data-id="${passkey.credentialId}">
            ${words.removePasskey}${hidden(`: ${passkey.name}`)}
          </button>
        </td>
      </tr>`,
  )}`;
}

function tokenRows(view: ViewContext, tokens: CredentialView[]): Html {
  const { words } = view;
  return html`${tokens.map(
    (token) =>
      html`<tr>
        <td>${token.name ?? ''}</td>
        <td>${token.role ? words.roles[token.role] : ''}</td>
        <td>${when(view, token.createdAt, '')}</td>
        <td>${when(view, token.lastUsedAt, words.notYet)}</td>
        <td>${when(view, token.expiresAt, '')}</td>
        <td>
          <button type="button" class="small secondary" data-action="revoke" data-id="${token.credentialId}">
            ${words.revokeToken}${hidden(`: ${token.name ?? ''}`)}
          </button>
        </td>
      </tr>`,
  )}`;
}

const table = (headings: string[], rows: Html) =>
  html`<div class="scroll">
    <table>
      <thead>
        <tr>
          ${headings.map((heading) => html`<th scope="col">${heading}</th>`)}
          <th scope="col">${hidden('—')}</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;

/** The signed-in person: who they are, where they are signed in, their passkeys and API tokens. */
export function accountView(view: ViewContext, me: OperatorPrincipal, lists: AccountLists): Html {
  const { words } = view;
  const grantable = ROLES.filter((role) => roleAtMost(role, me.role));
  return html`<section class="surface" aria-labelledby="me-heading">
      <h1 id="me-heading">${fill(words.signedInAs, { name: me.name })}</h1>
      <p class="muted">${me.email} · <span class="badge">${words.roles[me.role]}</span></p>
      <div class="actions">
        ${can(me.role, 'counter:take') ? html`<a href="/operator/counter">${words.counterLink}</a>` : ''}
        <button type="button" class="secondary" data-action="signout">${words.signOut}</button>
      </div>
      ${status('account')}
    </section>
    <section class="surface" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">${words.sessionsHeading}</h2>
      <p class="muted">${words.sessionsIntro}</p>
      ${table([words.what, words.since, words.lastUsed, words.from, words.expires], sessionRows(view, lists.sessions))}
      ${status('sessions')}
    </section>
    <section class="surface" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">${words.passkeysHeading}</h2>
      ${table([words.name, words.added, words.lastUsed], passkeyRows(view, lists.passkeys))}
      <form class="fields" data-form="add-passkey">
        <div class="field">
          <label for="passkey-name">${words.passkeyName}</label>
          <input id="passkey-name" name="passkeyName" required maxlength="60" aria-describedby="passkey-name-hint" />
          <p id="passkey-name-hint" class="hint">${words.passkeyNameHint}</p>
        </div>
        <div><button type="submit">${words.addPasskey}</button></div>
      </form>
      ${status('passkeys')}
    </section>
    <section class="surface" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">${words.tokensHeading}</h2>
      <p class="muted">${words.tokensIntro}</p>
      ${
        lists.tokens.length
          ? table([words.name, words.role, words.since, words.lastUsed, words.expires], tokenRows(view, lists.tokens))
          : html`<p>${words.noTokens}</p>`
      }
      <form class="fields" data-form="token">
        <div class="field">
          <label for="token-name">${words.name}</label>
          <input id="token-name" name="name" required maxlength="60" />
        </div>
        <div class="field">
          <label for="token-role">${words.role}</label>
          <select id="token-role" name="role">
            ${grantable.map(
              (role: Role) =>
                html`<option value="${role}" ${role === me.role ? raw('selected') : ''}>${words.roles[role]}</option>`,
            )}
          </select>
        </div>
        <div class="field">
          <label for="token-days">${words.expiresInDays}</label>
          <input id="token-days" name="expiresInDays" type="number" min="1" max="365" value="90" required />
        </div>
        <div><button type="submit">${words.createToken}</button></div>
      </form>
      <div data-new-token hidden>
        <p>${words.tokenShown}</p>
        <div class="field">
          <label for="new-token">${words.newToken}</label>
          <input id="new-token" class="secret" readonly />
        </div>
        <div class="actions">
          <button type="button" data-action="copy-token">${words.copy}</button>
          <button type="button" class="secondary" data-action="reload">${words.done}</button>
        </div>
      </div>
      ${status('tokens')}
    </section>`;
}

/** A link's first passkey: the script reads the link's token (after `#`, never sent here) and asks whom it is for. */
export function linkView(view: ViewContext, link: 'invite' | 'setup'): Html {
  const { words } = view;
  return html`<section class="surface" aria-labelledby="link-heading">
    <h1 id="link-heading">${link === 'setup' ? words.setupHeading : words.inviteHeading}</h1>
    <p class="muted" data-link-intro>${words.checkingLink}</p>
    <form class="fields" data-form="link" hidden>
      ${
        link === 'setup'
          ? html`<div class="field">
                <label for="your-name">${words.yourName}</label>
                <input id="your-name" name="name" required maxlength="100" autocomplete="name" />
              </div>
              <div class="field">
                <label for="your-email">${words.yourEmail}</label>
                <input id="your-email" name="email" type="email" required maxlength="254" autocomplete="email" />
              </div>`
          : ''
      }
      <div class="field">
        <label for="passkey-name">${words.passkeyName}</label>
        <input id="passkey-name" name="passkeyName" required maxlength="60" aria-describedby="passkey-name-hint" />
        <p id="passkey-name-hint" class="hint">${words.passkeyNameHint}</p>
      </div>
      <div><button type="submit">${words.makePasskey}</button></div>
    </form>
    ${status('link')}
  </section>`;
}

/** Approving a device: its code, name, when and from where it asked; or a field to type the code. */
export function deviceView(
  view: ViewContext,
  options: { userCode: string | null; device: DeviceAuthorizationRecord | undefined },
): Html {
  const { words } = view;
  const { device } = options;
  if (!device)
    return html`<section class="surface" aria-labelledby="device-heading">
      <h1 id="device-heading">${words.deviceHeading}</h1>
      ${options.userCode ? html`<p class="danger" role="alert">${words.deviceUnknown}</p>` : ''}
      <form class="fields" method="get" action="/operator/device">
        <div class="field">
          <label for="user-code">${words.code}</label>
          <input
            id="user-code"
            name="user_code"
            required
            maxlength="16"
            autocomplete="off"
            aria-describedby="user-code-hint"
          />
          <p id="user-code-hint" class="hint">${words.deviceEnter}</p>
        </div>
        <div><button type="submit">${words.continue}</button></div>
      </form>
    </section>`;
  const code = displayUserCode(device.userCode);
  return html`<section class="surface" aria-labelledby="device-heading">
    <h1 id="device-heading">${words.deviceHeading}</h1>
    <p>${words.deviceIntro}</p>
    <dl>
      <dt>${words.code}</dt>
      <dd class="code" data-user-code>${code}</dd>
      <dt>${words.device}</dt>
      <dd>${device.clientName}</dd>
      <dt>${words.asked}</dt>
      <dd>${when(view, device.createdAt, '')}</dd>
      <dt>${words.from}</dt>
      <dd>
        ${device.ip ?? ''}${device.userAgent ? html`<br /><span class="hint">${device.userAgent.slice(0, 120)}</span>` : ''}
      </dd>
    </dl>
    <div class="actions" data-device="${code}">
      <button type="button" data-action="device-approve">${words.approve}</button>
      <button type="button" class="secondary" data-action="device-deny">${words.deny}</button>
    </div>
    ${status('device')}
  </section>`;
}

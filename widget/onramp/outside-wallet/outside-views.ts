/** The templates and styles of a wallet outside this browser: the wallet apps, the QR code, the address, the signature. */
import { css, html, unsafeCSS, type TemplateResult } from 'lit';
import { loopbackNote, qrCode } from '../../shared/qr-code.ts';
import type { OutsideMessages } from './outside-messages.ts';
import { WALLET_APPS } from './wallet-apps.ts';

/** On a phone: this page in each wallet app's own browser, one link each, with a logo drawn from its initial. */
export function walletAppsView(page: URL, m: OutsideMessages): TemplateResult {
  return html`<p id="first-run-title" class="title">${m.openInApp}</p>
    <ul part="wallet-apps" class="apps" aria-label=${m.walletApps}>
      ${WALLET_APPS.map(
        (app) =>
          html`<li>
            <a part="wallet-app" class="app" href=${app.link(page)} rel="noopener noreferrer">
              <span class="logo logo-${app.id}" aria-hidden="true">${app.name.slice(0, 1)}</span>${app.name}
            </a>
          </li>`,
      )}
    </ul>`;
}

/** On a computer: this page's QR code, for the phone where the wallet app is. */
export function continueOnPhoneView(host: Element, page: URL, m: OutsideMessages): TemplateResult {
  return html`<div class="on-phone">
    ${qrCode(page.href, m.qrLabel)}
    <div>
      <p id="first-run-title" class="title">${m.continueOnPhone}</p>
      <p class="note">${m.scanToContinue}</p>
      ${loopbackNote(host, page.href, m.loopback)}
    </div>
  </div>`;
}

/** "Use an address": the field, its hint, and why what was typed is not an address. */
export function addressView(
  text: string,
  problem: boolean,
  m: OutsideMessages,
  type: (text: string) => void,
  submit: () => void,
): TemplateResult {
  return html`<div class="field">
    <label for="address">${m.addressLabel}</label>
    <input
      id="address"
      part="address"
      class="mono"
      autocomplete="off"
      autocapitalize="off"
      spellcheck="false"
      placeholder="0x…"
      .value=${text}
      aria-invalid=${problem ? 'true' : 'false'}
      aria-describedby="address-hint"
      @input=${(event: Event) => type((event.target as HTMLInputElement).value)}
      @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && submit()}
    />
    <p id="address-hint" class="hint ${problem ? 'danger' : ''}">${problem ? m.addressInvalid : m.addressHint}</p>
  </div>`;
}

/** The message to sign (to copy into the wallet app), and the field for the signature it gives back. */
export function signView(
  message: string,
  signature: { text: string; problem?: keyof OutsideMessages },
  copied: boolean,
  m: OutsideMessages,
  actions: { copy: () => void; type: (text: string) => void },
): TemplateResult {
  const { problem } = signature;
  return html`<section part="sign" class="sign" aria-labelledby="sign-title">
    <p id="sign-title" class="title">${m.signTitle}</p>
    <p class="note">${m.signHow}</p>
    <div class="field">
      <label for="message">${m.message}</label>
      <textarea id="message" part="message" class="mono" readonly rows="9" .value=${message}></textarea>
      <button part="secondary" type="button" class="secondary small" @click=${actions.copy}>
        ${copied ? m.copied : m.copyMessage}
      </button>
    </div>
    <div class="field">
      <label for="signature">${m.signature}</label>
      <textarea
        id="signature"
        part="signature"
        class="mono"
        rows="3"
        autocomplete="off"
        autocapitalize="off"
        spellcheck="false"
        placeholder="0x…"
        .value=${signature.text}
        aria-invalid=${problem ? 'true' : 'false'}
        aria-describedby="signature-hint"
        @input=${(event: Event) => actions.type((event.target as HTMLTextAreaElement).value)}
      ></textarea>
      <p id="signature-hint" class="hint ${problem ? 'danger' : ''}">${problem ? m[problem] : m.signatureHint}</p>
    </div>
  </section>`;
}

/** Each wallet app's logo colours, from the list (a class each: a style attribute would need 'unsafe-inline'). */
const LOGO_COLORS = unsafeCSS(
  WALLET_APPS.map(({ id, colors: [background, text] }) => `.logo-${id}{background:${background};color:${text}}`).join(
    '',
  ),
);

export const outsideStyles = css`
  .apps {
    list-style: none;
    margin: 0.5em 0 0;
    padding: 0;
    display: grid;
    grid-template-columns: repeat(2, minmax(0, 1fr));
    gap: 0.5em;
    font-size: 0.875em;
  }
  .app {
    box-sizing: border-box;
    display: flex;
    align-items: center;
    gap: 0.5em;
    min-height: 2.75rem;
    padding: 0.3em 0.6em;
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) * 0.67);
    color: var(--_text);
    font-weight: 600;
    text-decoration: none;
  }
  .app:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  .logo {
    display: inline-grid;
    place-items: center;
    flex: none;
    inline-size: 1.6em;
    block-size: 1.6em;
    border-radius: 0.4em;
    font-weight: 700;
  }
  ${LOGO_COLORS}
  .on-phone {
    display: flex;
    gap: 1em;
    align-items: center;
  }
  .on-phone svg {
    flex: none;
    inline-size: 7.5em;
    block-size: 7.5em;
  }
  .qr-note {
    margin: 0.25em 0 0;
    font-size: 0.875em;
    color: var(--_danger);
  }
  .on-phone .title {
    margin-block-end: 0.25em;
  }
  .sign {
    display: grid;
    gap: 0.75em;
  }
  .sign .note {
    margin: 0;
  }
  textarea {
    box-sizing: border-box;
    inline-size: 100%;
    font: inherit;
    font-size: 0.8em;
    color: var(--_text);
    background: var(--_background);
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.4em 0.6em;
    resize: vertical;
    overflow-wrap: anywhere;
  }
  textarea:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 1px;
  }
  textarea[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  .hint.danger {
    color: var(--_danger);
  }
  .sign button.small {
    justify-self: start;
  }
`;

/**
 * "Pay with your phone", a chunk that only desktops load (a fine pointer that hovers): its words,
 * the hand-off code from the proxy, and the QR code of the hand-off link (shared/qr-code.ts).
 */
import { css, html, type LitElement, type TemplateResult } from 'lit';
import type { Handoff } from '../../schemas/proxy-api.ts';
import { addStyles } from '../shared/add-styles.ts';
import { languageOf, type Language } from '../shared/i18n.ts';
import { ProxyClient } from '../shared/proxy-client.ts';
import { loopbackNote, qrCode } from '../shared/qr-code.ts';

export interface PhoneMessages {
  payWithPhone: string;
  payInBrowser: string;
  scan: string;
  qrLabel: string;
  copy: string;
  copied: string;
  /** The link is on this computer (a local demo): a phone cannot open it. */
  loopback: string;
}

const MESSAGES: Record<Language, PhoneMessages> = {
  en: {
    payWithPhone: 'Pay with your phone',
    payInBrowser: 'Pay in this browser',
    scan: 'Scan the code with your phone to pay in your bank’s app. This page updates by itself.',
    qrLabel: 'QR code of the payment link for your phone',
    copy: 'Copy link',
    copied: 'Link copied',
    loopback: 'This link leads to this computer ({host}): a phone cannot open it.',
  },
  de: {
    payWithPhone: 'Mit dem Handy bezahlen',
    payInBrowser: 'In diesem Browser bezahlen',
    scan: 'Scannen Sie den Code mit Ihrem Handy, um in der App Ihrer Bank zu bezahlen. Diese Seite aktualisiert sich von selbst.',
    qrLabel: 'QR-Code des Zahlungslinks für Ihr Handy',
    copy: 'Link kopieren',
    copied: 'Link kopiert',
    loopback: 'Dieser Link führt zu diesem Computer ({host}): Ein Handy kann ihn nicht öffnen.',
  },
  fr: {
    payWithPhone: 'Payer avec votre téléphone',
    payInBrowser: 'Payer dans ce navigateur',
    scan: 'Scannez le code avec votre téléphone pour payer dans l’application de votre banque. Cette page se met à jour toute seule.',
    qrLabel: 'QR code du lien de paiement pour votre téléphone',
    copy: 'Copier le lien',
    copied: 'Lien copié',
    loopback: 'Ce lien mène à cet ordinateur ({host}) : un téléphone ne peut pas l’ouvrir.',
  },
  es: {
    payWithPhone: 'Pagar con el móvil',
    payInBrowser: 'Pagar en este navegador',
    scan: 'Escanee el código con su móvil para pagar en la app de su banco. Esta página se actualiza sola.',
    qrLabel: 'Código QR del enlace de pago para su móvil',
    copy: 'Copiar enlace',
    copied: 'Enlace copiado',
    loopback: 'Este enlace lleva a este ordenador ({host}): un móvil no puede abrirlo.',
  },
  nl: {
    payWithPhone: 'Betalen met uw telefoon',
    payInBrowser: 'Betalen in deze browser',
    scan: 'Scan de code met uw telefoon om te betalen in de app van uw bank. Deze pagina werkt zichzelf bij.',
    qrLabel: 'QR-code van de betaallink voor uw telefoon',
    copy: 'Link kopiëren',
    copied: 'Link gekopieerd',
    loopback: 'Deze link leidt naar deze computer ({host}): een telefoon kan hem niet openen.',
  },
};

class HandoffClient extends ProxyClient {
  async handoff(statusToken: string): Promise<string> {
    const { body } = await this.call<Handoff>(`/api/payments/status/${encodeURIComponent(statusToken)}/handoff`);
    return `${this.origin}/p/${body.code}`;
  }
}

/** "Pay with your phone" for one element: its words, the hand-off link of its payment, and the view of it. */
export class PhoneHandoff {
  /** `<proxy>/p/<code>`, which sends a phone to the payment's bank page. */
  url = '';
  private copied = false;

  constructor(private readonly host: LitElement) {
    addStyles(host, phoneStyles);
  }

  m(locale: string): PhoneMessages {
    return MESSAGES[languageOf(locale)];
  }

  /** Asks the proxy for the payment's hand-off link. */
  async open(proxyOrigin: string, statusToken: string): Promise<void> {
    this.url = await new HandoffClient(proxyOrigin).handoff(statusToken);
    this.copied = false;
  }

  view(locale: string): TemplateResult {
    const { url } = this;
    return phoneView(this.host, url, this.m(locale), this.copied, () => {
      void navigator.clipboard?.writeText(url).then(() => {
        this.copied = true;
        this.host.requestUpdate();
      });
    });
  }
}

/** The QR code, the link as text, and a button that copies it. */
export function phoneView(
  host: Element,
  url: string,
  m: PhoneMessages,
  copied: boolean,
  copy: () => void,
): TemplateResult {
  return html`<div part="phone" class="phone">
    ${qrCode(url, m.qrLabel)}
    <p class="link"><span part="handoff-url">${url}</span></p>
    ${loopbackNote(host, url, m.loopback)}
    <button part="secondary" type="button" class="secondary" @click=${copy}>${copied ? m.copied : m.copy}</button>
  </div>`;
}

const phoneStyles = css`
  .phone {
    display: grid;
    justify-items: center;
    gap: 0.5em;
    margin-block: 0.75em;
  }
  svg {
    width: min(14em, 100%);
    height: auto;
  }
  .link {
    margin: 0;
    font-size: 0.8em;
    color: var(--_muted);
    word-break: break-all;
    text-align: center;
  }
  .qr-note {
    margin: 0;
    font-size: 0.875em;
    color: var(--_danger);
    text-align: center;
  }
  button.secondary {
    background: transparent;
    color: var(--_text);
    border-color: var(--_muted);
    margin-block-start: 0.5em;
  }
`;

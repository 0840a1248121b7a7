import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { acceptedLanguage } from '../../lib/accept-language.ts';

/**
 * What the phone is told: when a hand-off link does not lead to the bank, and when the bank sends it
 * back (`pending` while the payment service has yet to confirm).
 */
export type HandoffOutcome = 'invalid' | 'expired' | 'pending' | 'completed' | 'cancelled' | 'rejected' | 'failed';

/** How often the page asks again while the payment is being confirmed, in seconds. */
export const PENDING_REFRESH_SECONDS = 2;

type Words = Record<HandoffOutcome, [title: string, text: string]>;

const WORDS: Record<string, Words> = {
  en: {
    invalid: ['This link is not valid', 'Start the payment again on your computer and scan its new code.'],
    expired: ['This link has expired', 'Start the payment again on your computer and scan its new code.'],
    pending: ['We are confirming your payment', 'This page updates by itself as soon as your bank answers.'],
    completed: ['Payment done', 'Thank you. You can go back to your computer.'],
    cancelled: [
      'The payment did not go through',
      'You cancelled it at your bank. Go back to your computer to try again.',
    ],
    rejected: ['The payment did not go through', 'Your bank declined it. Go back to your computer to try again.'],
    failed: [
      'The payment did not go through',
      'Your bank could not complete it. Go back to your computer to try again.',
    ],
  },
  de: {
    invalid: ['Dieser Link ist ungültig', 'Starten Sie die Zahlung am Computer neu und scannen Sie den neuen Code.'],
    expired: ['Dieser Link ist abgelaufen', 'Starten Sie die Zahlung am Computer neu und scannen Sie den neuen Code.'],
    pending: ['Wir bestätigen Ihre Zahlung', 'Diese Seite aktualisiert sich von selbst, sobald Ihre Bank antwortet.'],
    completed: ['Zahlung erledigt', 'Vielen Dank. Sie können zu Ihrem Computer zurückkehren.'],
    cancelled: [
      'Die Zahlung ist nicht erfolgt',
      'Sie haben sie bei Ihrer Bank abgebrochen. Versuchen Sie es am Computer erneut.',
    ],
    rejected: ['Die Zahlung ist nicht erfolgt', 'Ihre Bank hat sie abgelehnt. Versuchen Sie es am Computer erneut.'],
    failed: [
      'Die Zahlung ist nicht erfolgt',
      'Ihre Bank konnte sie nicht ausführen. Versuchen Sie es am Computer erneut.',
    ],
  },
  fr: {
    invalid: ['Ce lien n’est pas valide', 'Relancez le paiement sur votre ordinateur et scannez le nouveau code.'],
    expired: ['Ce lien a expiré', 'Relancez le paiement sur votre ordinateur et scannez le nouveau code.'],
    pending: ['Nous confirmons votre paiement', 'Cette page se met à jour toute seule dès que votre banque répond.'],
    completed: ['Paiement effectué', 'Merci. Vous pouvez revenir à votre ordinateur.'],
    cancelled: [
      'Le paiement n’a pas abouti',
      'Vous l’avez annulé auprès de votre banque. Réessayez depuis votre ordinateur.',
    ],
    rejected: ['Le paiement n’a pas abouti', 'Votre banque l’a refusé. Réessayez depuis votre ordinateur.'],
    failed: ['Le paiement n’a pas abouti', 'Votre banque n’a pas pu l’exécuter. Réessayez depuis votre ordinateur.'],
  },
  es: {
    invalid: ['Este enlace no es válido', 'Vuelva a iniciar el pago en su ordenador y escanee el nuevo código.'],
    expired: ['Este enlace ha caducado', 'Vuelva a iniciar el pago en su ordenador y escanee el nuevo código.'],
    pending: ['Estamos confirmando su pago', 'Esta página se actualiza sola en cuanto responda su banco.'],
    completed: ['Pago realizado', 'Gracias. Puede volver a su ordenador.'],
    cancelled: [
      'El pago no se ha realizado',
      'Lo canceló en su banco. Vuelva a su ordenador para intentarlo de nuevo.',
    ],
    rejected: ['El pago no se ha realizado', 'Su banco lo rechazó. Vuelva a su ordenador para intentarlo de nuevo.'],
    failed: [
      'El pago no se ha realizado',
      'Su banco no pudo completarlo. Vuelva a su ordenador para intentarlo de nuevo.',
    ],
  },
  nl: {
    invalid: ['Deze link is niet geldig', 'Start de betaling opnieuw op uw computer en scan de nieuwe code.'],
    expired: ['Deze link is verlopen', 'Start de betaling opnieuw op uw computer en scan de nieuwe code.'],
    pending: ['We bevestigen uw betaling', 'Deze pagina werkt zichzelf bij zodra uw bank antwoordt.'],
    completed: ['Betaling gelukt', 'Bedankt. U kunt teruggaan naar uw computer.'],
    cancelled: [
      'De betaling is niet gelukt',
      'U heeft deze bij uw bank geannuleerd. Probeer het opnieuw op uw computer.',
    ],
    rejected: ['De betaling is niet gelukt', 'Uw bank heeft deze geweigerd. Probeer het opnieuw op uw computer.'],
    failed: ['De betaling is niet gelukt', 'Uw bank kon deze niet uitvoeren. Probeer het opnieuw op uw computer.'],
  },
};

const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;

/** The language of the phone's Accept-Language that the page speaks; English otherwise. */
export const pageLanguage = (acceptLanguage: string | undefined): string => acceptedLanguage(acceptLanguage, LANGUAGES);

/** A phone's screen keeps a margin around the card (body's padding), as every page of Kassa's does. */
const STYLE = `:root{color-scheme:light dark;--bg:#f2f4f7;--surface:#fff;--text:#1d2433;--muted:#5b6475;--ok:#067647;--bad:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#10141c;--surface:#1b2130;--text:#e6e9ef;--muted:#a3acbd;--ok:#47cd89;--bad:#f97066}}
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:0 1rem;background:var(--bg);color:var(--text)}
main{max-width:26rem;margin:3rem auto;background:var(--surface);border-radius:12px;padding:2rem}
h1{font-size:1.4rem;margin:0 0 .5rem}.completed h1{color:var(--ok)}.failed h1{color:var(--bad)}p{color:var(--muted);margin:0}`;

/** The page's Content-Security-Policy: its one style block by hash, nothing else. */
export const HANDOFF_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:; frame-ancestors 'none'`;

/**
 * The page the phone sees instead of the bank, or back from it: what happened and what to do, in its
 * language, in light or dark. While the payment is being confirmed it reloads itself (no script).
 */
export function handoffPage(outcome: HandoffOutcome, language: string): HtmlEscapedString | Promise<HtmlEscapedString> {
  const [title, text] = (WORDS[language] ?? WORDS['en']!)[outcome];
  const tone =
    outcome === 'completed' ? 'completed' : ['invalid', 'expired', 'pending'].includes(outcome) ? '' : 'failed';
  return html`<!doctype html>
    <html lang="${language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        ${outcome === 'pending' ? html`<meta http-equiv="refresh" content="${PENDING_REFRESH_SECONDS}" />` : ''}
        <link rel="icon" href="data:," />
        <title>${title}</title>
        ${raw(`<style>${STYLE}</style>`)}
      </head>
      <body>
        <main class="${tone}" data-outcome="${outcome}">
          <h1>${title}</h1>
          <p>${text}</p>
        </main>
      </body>
    </html>`;
}

import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { acceptedLanguage } from '../../lib/accept-language.ts';
import { LINK_LANGUAGES, type LinkView } from '../../schemas/links.ts';

type Language = (typeof LINK_LANGUAGES)[number];
/** What the page can say instead of offering to pay: the link's status, or that there is no such link. */
export type LinkPageState = Exclude<LinkView['status'], 'active'> | 'unknown';

interface Words {
  /** The open amount's line: `{min}` and `{max}` are the bounds, formatted. */
  between: string;
  byBank: string;
  states: Record<LinkPageState, [title: string, text: string]>;
}

const WORDS: Record<Language, Words> = {
  en: {
    between: 'You choose the amount: {min} to {max}',
    byBank: 'Pay by bank',
    states: {
      unknown: ['This link does not exist', 'Check the address you were sent, or ask the seller for a new link.'],
      paused: ['This link is paused', 'The seller has paused it for now. Try again later.'],
      ended: ['This link has ended', 'It takes no more payments. Ask the seller if you still need to pay.'],
      expired: ['This link has expired', 'It takes no more payments. Ask the seller for a new link.'],
      'used-up': ['This link has been used', 'Every payment it takes has been made.'],
      'total-reached': ['This link is complete', 'It has taken all it may take.'],
    },
  },
  de: {
    between: 'Sie wählen den Betrag: {min} bis {max}',
    byBank: 'Per Bank bezahlen',
    states: {
      unknown: ['Diesen Link gibt es nicht', 'Prüfen Sie die Adresse oder bitten Sie um einen neuen Link.'],
      paused: ['Dieser Link ist pausiert', 'Der Verkäufer hat ihn vorübergehend pausiert. Versuchen Sie es später.'],
      ended: ['Dieser Link ist beendet', 'Er nimmt keine Zahlungen mehr an. Fragen Sie beim Verkäufer nach.'],
      expired: ['Dieser Link ist abgelaufen', 'Er nimmt keine Zahlungen mehr an. Bitten Sie um einen neuen Link.'],
      'used-up': ['Dieser Link wurde verwendet', 'Alle Zahlungen, die er annimmt, sind erfolgt.'],
      'total-reached': ['Dieser Link ist ausgeschöpft', 'Er hat den vollen Betrag erhalten.'],
    },
  },
  fr: {
    between: 'Vous choisissez le montant : de {min} à {max}',
    byBank: 'Payer par virement bancaire',
    states: {
      unknown: ['Ce lien n’existe pas', 'Vérifiez l’adresse reçue ou demandez un nouveau lien au vendeur.'],
      paused: ['Ce lien est en pause', 'Le vendeur l’a mis en pause pour le moment. Réessayez plus tard.'],
      ended: ['Ce lien est terminé', 'Il n’accepte plus de paiement. Demandez au vendeur si vous devez encore payer.'],
      expired: ['Ce lien a expiré', 'Il n’accepte plus de paiement. Demandez un nouveau lien au vendeur.'],
      'used-up': ['Ce lien a été utilisé', 'Tous les paiements qu’il accepte ont été faits.'],
      'total-reached': ['Ce lien est complet', 'Il a reçu tout ce qu’il peut recevoir.'],
    },
  },
  es: {
    between: 'Usted elige el importe: de {min} a {max}',
    byBank: 'Pagar con su banco',
    states: {
      unknown: ['Este enlace no existe', 'Compruebe la dirección recibida o pida un enlace nuevo al vendedor.'],
      paused: ['Este enlace está en pausa', 'El vendedor lo ha pausado por ahora. Inténtelo más tarde.'],
      ended: ['Este enlace ha terminado', 'Ya no acepta pagos. Pregunte al vendedor si aún debe pagar.'],
      expired: ['Este enlace ha caducado', 'Ya no acepta pagos. Pida un enlace nuevo al vendedor.'],
      'used-up': ['Este enlace ya se ha usado', 'Se han hecho todos los pagos que acepta.'],
      'total-reached': ['Este enlace está completo', 'Ha recibido todo lo que puede recibir.'],
    },
  },
  nl: {
    between: 'U kiest het bedrag: {min} tot {max}',
    byBank: 'Betalen via uw bank',
    states: {
      unknown: ['Deze link bestaat niet', 'Controleer het adres of vraag de verkoper om een nieuwe link.'],
      paused: ['Deze link is gepauzeerd', 'De verkoper heeft hem tijdelijk gepauzeerd. Probeer het later opnieuw.'],
      ended: ['Deze link is beëindigd', 'Hij neemt geen betalingen meer aan. Vraag de verkoper of u nog moet betalen.'],
      expired: ['Deze link is verlopen', 'Hij neemt geen betalingen meer aan. Vraag de verkoper om een nieuwe link.'],
      'used-up': ['Deze link is gebruikt', 'Alle betalingen die hij aanneemt zijn gedaan.'],
      'total-reached': ['Deze link is vol', 'Hij heeft alles ontvangen wat hij mag ontvangen.'],
    },
  },
};

/** The link's language when it has one, else the first of the browser's that the page speaks. */
export const linkPageLanguage = (link: Pick<LinkView, 'language'> | undefined, acceptLanguage: string | undefined) =>
  link?.language ?? acceptedLanguage(acceptLanguage, LINK_LANGUAGES);

/** `42,50 €` in German: Intl formats the decimal string exactly (no float); an unknown code shows as it is. */
function money(amount: string, currencyCode: string, language: Language): string {
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency: currencyCode }).format(
      amount as Intl.StringNumericLiteral,
    );
  } catch {
    return `${amount} ${currencyCode}`;
  }
}

/** What the link asks, in words: its amount, or the bounds of the amount the customer chooses. */
export function amountWords(link: LinkView, language: Language): string {
  if (link.amount !== null) return money(link.amount, link.currencyCode, language);
  return WORDS[language].between
    .replace('{min}', money(link.openAmount!.min, link.currencyCode, language))
    .replace('{max}', money(link.openAmount!.max, link.currencyCode, language));
}

const STYLE = `:root{color-scheme:light dark;--bg:#f2f4f7;--surface:#fff;--text:#1d2433;--muted:#5b6475}
@media (prefers-color-scheme:dark){:root{--bg:#10141c;--surface:#1b2130;--text:#e6e9ef;--muted:#a3acbd}}
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:0 1rem;background:var(--bg);color:var(--text)}
main{max-width:26rem;margin:3rem auto;background:var(--surface);border-radius:12px;padding:2rem}
h1{font-size:1.4rem;margin:0 0 .5rem}p{color:var(--muted);margin:0 0 .5rem}.amount{font-size:1.6rem;color:var(--text)}`;

/** The page's Content-Security-Policy: its one style block by hash, nothing else. */
export const LINK_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:; frame-ancestors 'none'`;

/**
 * A link's page: its title, description and amount, with Open Graph tags (title and amount) so that a
 * link pasted into a chat shows them; or, when it takes no payment, why, in plain words. In the link's
 * language or the browser's, light or dark.
 */
export function linkPage(
  link: LinkView | undefined,
  language: Language,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const words = WORDS[language];
  const state: LinkPageState | 'active' = link ? link.status : 'unknown';
  const [title, text] = state === 'active' ? [link!.title, link!.description] : words.states[state];
  const amount = link && state === 'active' ? amountWords(link, language) : undefined;
  const summary = amount ? `${amount} · ${words.byBank}` : text;
  return html`<!doctype html>
    <html lang="${language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="robots" content="noindex" />
        <meta name="description" content="${summary}" />
        <meta property="og:type" content="website" />
        <meta property="og:title" content="${title}" />
        <meta property="og:description" content="${summary}" />
        ${link?.url ? html`<meta property="og:url" content="${link.url}" />` : ''}
        <link rel="icon" href="data:," />
        <title>${amount ? `${title} · ${amount}` : title}</title>
        ${raw(`<style>${STYLE}</style>`)}
      </head>
      <body>
        <main data-state="${state}">
          <h1>${title}</h1>
          ${amount ? html`<p class="amount">${amount}</p>` : ''} ${text ? html`<p>${text}</p>` : ''}
        </main>
      </body>
    </html>`;
}

import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { acceptedLanguage } from '../../lib/accept-language.ts';
import { formatMoney } from '../../lib/format-money.ts';
import { LINK_LANGUAGES, type LinkPageData, type LinkView } from '../../schemas/links.ts';
import { scriptJson } from '../http/script-json.ts';
import { brandHeader, brandStyle } from './link-brand.ts';
import type { MerchantBrand } from './link-settings.ts';

type Language = (typeof LINK_LANGUAGES)[number];
/** What the page can say instead of offering to pay: the link's status, or that there is no such link. */
export type LinkPageState = Exclude<LinkView['status'], 'active'> | 'unknown';

interface Words {
  /** The open amount's line: `{min}` and `{max}` are the bounds, formatted. */
  between: string;
  byBank: string;
  /** The open amount's field; `{currency}` is the currency's code. */
  amountLabel: string;
  next: string;
  /** An amount typed that the link does not take: `{min}` and `{max}` as in `between`. */
  outOfBounds: string;
  failed: string;
  /** Under the receipt, back from the bank. */
  keep: string;
  states: Record<LinkPageState, [title: string, text: string]>;
}

const WORDS: Record<Language, Words> = {
  en: {
    between: 'You choose the amount: {min} to {max}',
    byBank: 'Pay by bank',
    amountLabel: 'Amount ({currency})',
    next: 'Continue',
    outOfBounds: 'Enter an amount from {min} to {max}.',
    failed: 'The payment could not be started. Try again in a moment.',
    keep: 'Keep this receipt: print it, or save it as a PDF from your browser.',
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
    amountLabel: 'Betrag ({currency})',
    next: 'Weiter',
    outOfBounds: 'Geben Sie einen Betrag von {min} bis {max} ein.',
    failed: 'Die Zahlung konnte nicht gestartet werden. Versuchen Sie es gleich noch einmal.',
    keep: 'Bewahren Sie diesen Beleg auf: drucken Sie ihn oder speichern Sie ihn im Browser als PDF.',
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
    amountLabel: 'Montant ({currency})',
    next: 'Continuer',
    outOfBounds: 'Saisissez un montant de {min} à {max}.',
    failed: 'Le paiement n’a pas pu démarrer. Réessayez dans un instant.',
    keep: 'Gardez ce reçu : imprimez-le ou enregistrez-le en PDF depuis votre navigateur.',
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
    amountLabel: 'Importe ({currency})',
    next: 'Continuar',
    outOfBounds: 'Introduzca un importe de {min} a {max}.',
    failed: 'No se pudo iniciar el pago. Inténtelo de nuevo en un momento.',
    keep: 'Guarde este recibo: imprímalo o guárdelo como PDF desde su navegador.',
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
    amountLabel: 'Bedrag ({currency})',
    next: 'Verder',
    outOfBounds: 'Vul een bedrag in van {min} tot {max}.',
    failed: 'De betaling kon niet worden gestart. Probeer het zo opnieuw.',
    keep: 'Bewaar dit betaalbewijs: druk het af of sla het op als pdf vanuit uw browser.',
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

/** A line of words with the open amount's bounds, formatted, where `{min}` and `{max}` stand. */
const withBounds = (line: string, link: LinkView, language: Language) =>
  line
    .replace('{min}', formatMoney(link.openAmount!.min, link.currencyCode, language))
    .replace('{max}', formatMoney(link.openAmount!.max, link.currencyCode, language));

/** What the link asks, in words: its amount, or the bounds of the amount the customer chooses. */
export function amountWords(link: LinkView, language: Language): string {
  if (link.amount !== null) return formatMoney(link.amount, link.currencyCode, language);
  return withBounds(WORDS[language].between, link, language);
}

const STYLE = `:root{color-scheme:light dark;--bg:#f2f4f7;--surface:#fff;--text:#1d2433;--muted:#5b6475;--border:#8a93a3;--primary:#1f4fd1;--on-primary:#fff;--danger:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#10141c;--surface:#1b2130;--text:#e6e9ef;--muted:#a3acbd;--border:#6b7587;--primary:#9db8ff;--on-primary:#0b1020;--danger:#ffa199}}
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:0 1rem;background:var(--bg);color:var(--text)}
main{max-width:26rem;margin:3rem auto;background:var(--surface);border-radius:12px;padding:2rem}
h1{font-size:1.4rem;margin:0 0 .5rem}p{color:var(--muted);margin:0 0 .5rem}.amount{font-size:1.6rem;color:var(--text)}
form{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0 0}[hidden]{display:none}label{flex-basis:100%;font-weight:600}
input,button{font:inherit;border-radius:8px;padding:.6rem .8rem}
input{flex:1 1 8rem;min-width:0;border:1px solid var(--border);background:var(--surface);color:var(--text)}
button{border:0;font-weight:600;background:var(--primary);color:var(--on-primary);cursor:pointer}
:focus-visible{outline:3px solid var(--primary);outline-offset:2px}
#kassa-link-status{min-height:1.5em;margin:.5rem 0}.danger{color:var(--danger)}
#kassa-pay[data-held]{min-height:14rem}kassa-checkout{display:block}
@media print{body{background:#fff;color:#000;padding:0}main{margin:0;padding:0}form,#kassa-link-status{display:none}
kassa-checkout::part(button),kassa-checkout::part(secondary){display:none}}`;

/** The page's style and Content-Security-Policy with the merchant's look, made once at start. */
export interface LinkPageLook {
  brand: MerchantBrand;
  style: string;
  csp: string;
}

/**
 * The page's look: Kassa's style with the merchant's (link-brand.ts) after it, and the page's
 * Content-Security-Policy: its one style block by hash; kassa.js, its chunks and the page's script
 * from this proxy, which they alone call; images from itself or inline (the merchant's logo, a
 * `data:` URL); Trusted Types, which Lit's templates use through their own policy; nothing else.
 */
export function linkPageLook(brand: MerchantBrand): LinkPageLook {
  const style = [STYLE, brandStyle(brand)].filter(Boolean).join('\n');
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types lit-html',
  ].join('; ');
  return { brand, style, csp };
}

/** What a payable page needs beside the link: its script's path, and the checkout of a receipt to show. */
export interface LinkPageOptions {
  look: LinkPageLook;
  /** The page's script (`/links/scripts/link-<hash>.js`). */
  script: string;
  /** Back from the bank: the checkout of this link whose payment the page shows; undefined otherwise. */
  receiptOf?: string | undefined;
}

/**
 * A link's page: its title, description and amount, with Open Graph tags (title and amount) so that a
 * link pasted into a chat shows them, and the checkout element (or, for an open amount, the field
 * first) that its script brings; back from the bank, the payment and its receipt. When it takes no
 * payment, why, in plain words. In the link's language or the browser's, light or dark, under the
 * merchant's name or logo and in their colour when the settings give them.
 */
export function linkPage(
  link: LinkView | undefined,
  language: Language,
  options: LinkPageOptions,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const words = WORDS[language];
  const receipt = link && options.receiptOf !== undefined;
  const state: LinkPageState | 'active' | 'receipt' = receipt ? 'receipt' : link ? link.status : 'unknown';
  const payable = state === 'active' || state === 'receipt';
  // A customer who paid a link's last use may reload its page: the script shows the receipt this tab kept.
  const scripted = payable || state === 'used-up' || state === 'total-reached';
  const [title, text] = payable ? [link!.title, receipt ? words.keep : link!.description] : words.states[state];
  const amount = link && state === 'active' ? amountWords(link, language) : undefined;
  const summary = amount ? `${amount} · ${words.byBank}` : text;
  const open = state === 'active' && link!.amount === null;
  const { brand } = options.look;
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
        ${brand.name ? html`<meta property="og:site_name" content="${brand.name}" />` : ''}
        <link rel="icon" href="data:," />
        <title>${amount ? `${title} · ${amount}` : title}</title>
        ${raw(`<style>${options.look.style}</style>`)}
        ${
          scripted
            ? html`<script type="module" src="/kassa.js"></script>
                <script type="module" src="${options.script}"></script>`
            : ''
        }
      </head>
      <body>
        <main data-state="${state}">
          ${brandHeader(brand)}
          <h1>${title}</h1>
          ${amount ? html`<p class="amount">${amount}</p>` : ''}
          ${text || scripted ? html`<p id="kassa-link-says">${text}</p>` : ''} ${open ? amountForm(link!, words) : ''}
          ${
            scripted
              ? html`<p id="kassa-link-status" role="status"></p>
                  <div id="kassa-pay" ${payable && !open ? raw('data-held') : ''}></div>
                  <script type="application/json" id="kassa-link">
                    ${raw(scriptJson(pageData(link!, language, payable, options.receiptOf)))}
                  </script>`
              : ''
          }
        </main>
      </body>
    </html>`;
}

/** The open amount's field: the script sends what is typed, and the proxy says whether the link takes it. */
function amountForm(link: LinkView, words: Words) {
  return html`<form id="kassa-amount" novalidate>
    <label for="kassa-amount-input">${words.amountLabel.replace('{currency}', link.currencyCode)}</label>
    <input
      id="kassa-amount-input"
      name="amount"
      inputmode="decimal"
      autocomplete="off"
      required
      aria-describedby="kassa-link-status"
    />
    <button type="submit">${words.next}</button>
  </form>`;
}

/** What the page's script needs: the link, the receipt to show, and the words it may have to say. */
function pageData(link: LinkView, language: Language, payable: boolean, receiptOf: string | undefined): LinkPageData {
  const words = WORDS[language];
  return {
    code: link.code,
    title: link.title,
    language,
    currencyCode: link.currencyCode,
    openAmount: link.openAmount,
    payable,
    returnUrl: link.returnUrl,
    receiptOf: receiptOf ?? null,
    words: {
      outOfBounds: words.outOfBounds,
      failed: words.failed,
      keep: words.keep,
      refusals: {
        paused: words.states.paused,
        ended: words.states.ended,
        expired: words.states.expired,
        'used-up': words.states['used-up'],
        'total-reached': words.states['total-reached'],
      },
    },
  };
}

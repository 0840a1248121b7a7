import { Hono, type Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { isTerminalStatus, type PaymentRecord } from '../../schemas/pay.ts';
import { banksFor, findBanks, monogram, SANDBOX_BANKS } from './banks.ts';
import { flowWords, type FlowWords } from './flow-words.ts';
import { PaymentStateError, type PaymentLedger } from './payment-ledger.ts';

/**
 * The hosted flow a customer is sent to (`flowUrl`): pick a bank, then authorise or cancel. It
 * stands in for the bank's own pages, so it uses no script at all; plain forms do the work.
 * After either button the browser goes back to the payment's `redirectUrl`, unchanged. It speaks the
 * customer's language (`?lang=` or Accept-Language), follows the system's dark mode, and has an icon.
 */
export function flowPage(ledger: PaymentLedger, payee: (keyId: string) => string | undefined): Hono {
  const app = new Hono();
  const words = (c: Context) => flowWords(c.req.query('lang'), c.req.header('Accept-Language'));
  /** Who is paid (the key's name: the merchant as the dashboard names it), and the banks the customer searched for. */
  const shown = (c: Context): Shown => {
    const keyId = ledger.keyOf(c.req.param('transactionId')!);
    return { payee: keyId && payee(keyId), query: c.req.query('q') ?? '', lang: c.req.query('lang') };
  };
  const notFound = (c: Context) => {
    const [language, w] = words(c);
    return c.html(page(language, w, w.notFound, html`<p>${w.notValid}</p>`), 404);
  };

  app.get('/favicon.svg', (c) => {
    c.header('Content-Type', 'image/svg+xml');
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(FAVICON);
  });

  app.get('/:transactionId', (c) => {
    const payment = ledger.read(c.req.param('transactionId'));
    if (!payment) return notFound(c);
    if (isTerminalStatus(payment.status)) return c.html(finished(payment, ...words(c)));
    return c.html(chooser(payment, shown(c), ...words(c)));
  });

  app.post('/:transactionId', async (c) => {
    const transactionId = c.req.param('transactionId');
    const payment = ledger.read(transactionId);
    if (!payment) return notFound(c);
    const form = await c.req.parseBody().catch((): Record<string, string | File> => ({}));
    const action = form['action'];
    const bank = SANDBOX_BANKS.find((candidate) => candidate.providerId === form['providerId']);
    try {
      if (action === 'cancel') ledger.cancel(transactionId, bank?.providerId);
      else if (action === 'authorise' && bank && banksFor(payment.currencyCode).includes(bank))
        ledger.authorise(transactionId, bank.providerId, bank.rejects ?? false);
      else return c.html(chooser(payment, shown(c), ...words(c), true), 400);
    } catch (error) {
      if (error instanceof PaymentStateError) return c.html(finished(ledger.read(transactionId)!, ...words(c)), 409);
      throw error;
    }
    return c.redirect(payment.redirectUrl, 303);
  });

  return app;
}

/**
 * Each bank's logo: its monogram on a colour of its own, drawn here (no image is fetched), one class
 * per bank; white text on each colour passes WCAG AA.
 */
const LOGO_PALETTE = ['#1d4ed8', '#047857', '#b42318', '#6d28d9', '#b45309', '#0e7490', '#be185d', '#4d7c0f'];
const LOGO_COLORS = raw(
  SANDBOX_BANKS.map(
    (bank, index) => `.logo-${bank.providerId}{background:${LOGO_PALETTE[index % LOGO_PALETTE.length]}}`,
  ).join(''),
);

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M6 13 16 6l10 7zM8 15h3v8H8zm6.5 0h3v8h-3zM21 15h3v8h-3zM6 25h20v2H6z" fill="#fff"/></svg>`;

function amount(payment: PaymentRecord, w: FlowWords): string {
  return new Intl.NumberFormat(w.locale, { style: 'currency', currency: payment.currencyCode }).format(payment.amount);
}

/** What the chooser shows besides the payment: its payee, and the search the customer made. */
interface Shown {
  payee: string | undefined;
  query: string;
  /** The language the checkout asked for, kept across a search. */
  lang: string | undefined;
}

function chooser(
  payment: PaymentRecord,
  { payee, query, lang }: Shown,
  language: string,
  w: FlowWords,
  problem = false,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const banks = findBanks(banksFor(payment.currencyCode), query);
  return page(
    language,
    w,
    w.payByBank,
    html`<p class="amount">${amount(payment, w)}</p>
      ${payee ? html`<p class="payee"><span class="muted">${w.payee}</span> <strong>${payee}</strong></p>` : ''}
      <p class="muted">${w.reference} ${payment.reference}</p>
      ${problem ? html`<p class="problem" role="alert">${w.chooseToAuthorise}</p>` : ''}
      <form method="get" role="search" class="search">
        <label for="q">${w.findBank}</label>
        <div class="row">
          <input id="q" type="search" name="q" value="${query}" autocomplete="off" />
          ${lang ? html`<input type="hidden" name="lang" value="${lang}" />` : ''}
          <button type="submit" class="secondary">${w.search}</button>
        </div>
      </form>
      <form method="post">
        <fieldset>
          <legend>${w.chooseBank}</legend>
          ${banks.map(
            (bank, index) =>
              html`<label class="bank"
                ><input
                  type="radio"
                  name="providerId"
                  value="${bank.providerId}"
                  required
                  ${index === 0 ? 'checked' : ''}
                /><span class="logo logo-${bank.providerId}" aria-hidden="true">${monogram(bank.name)}</span>
                ${bank.name}</label
              >`,
          )}
          ${
            banks.length
              ? ''
              : html`<p>
                  ${w.noBankFound.replace('{query}', query)}
                  <a href="?${new URLSearchParams(lang ? { lang } : {}).toString()}">${w.allBanks}</a>
                </p>`
          }
        </fieldset>
        <button type="submit" name="action" value="authorise">${w.authorise}</button>
        <button type="submit" name="action" value="cancel" formnovalidate class="secondary">${w.cancel}</button>
      </form>`,
  );
}

function finished(
  payment: PaymentRecord,
  language: string,
  w: FlowWords,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  return page(
    language,
    w,
    w.finished,
    html`<p class="amount">${amount(payment, w)}</p>
      <p>${payment.status === 'COMPLETED' ? w.finishedCompleted : w.finishedFailed}</p>
      <p><a href="${payment.redirectUrl}">${w.backToMerchant}</a></p>`,
  );
}

function page(language: string, w: FlowWords, title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="${language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" type="image/svg+xml" href="/pay/flow/favicon.svg" />
        <title>${title} · ${w.sandbox}</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            margin: 0;
            padding: 0 1rem;
            background: #f2f4f7;
            color: #1d2433;
          }
          main {
            max-width: 26rem;
            margin: 3rem auto;
            background: #fff;
            border-radius: 12px;
            padding: 2rem;
            box-shadow: 0 2px 12px #0001;
          }
          .badge {
            display: inline-block;
            font-size: 0.75rem;
            background: #fff3c4;
            color: #7a5b00;
            border-radius: 4px;
            padding: 0 0.5rem;
          }
          .amount {
            font-size: 2rem;
            font-weight: 600;
            margin: 0.5rem 0 0;
          }
          .muted {
            color: #5b6475;
            margin-top: 0;
          }
          .problem {
            color: #b42318;
          }
          fieldset {
            border: 1px solid #d0d5dd;
            border-radius: 8px;
            margin: 1rem 0;
          }
          .payee {
            margin: 0.25rem 0 0;
          }
          .search {
            margin-top: 1rem;
          }
          .search label {
            display: block;
            font-weight: 600;
          }
          .row {
            display: flex;
            gap: 0.5rem;
          }
          input[type='search'] {
            flex: 1;
            min-width: 0;
            font: inherit;
            padding: 0.5rem 0.7rem;
            border: 1px solid #8a93a3;
            border-radius: 8px;
            background: inherit;
            color: inherit;
          }
          .bank {
            display: flex;
            align-items: center;
            gap: 0.6rem;
            padding: 0.4rem 0;
          }
          .logo {
            display: inline-grid;
            place-items: center;
            width: 2rem;
            height: 2rem;
            border-radius: 8px;
            color: #fff;
            font-weight: 700;
          }
          ${LOGO_COLORS} button {
            font: inherit;
            padding: 0.6rem 1.2rem;
            border-radius: 8px;
            border: 0;
            background: #1d4ed8;
            color: #fff;
            cursor: pointer;
          }
          button.secondary {
            background: #e4e7ec;
            color: #1d2433;
          }
          button:focus-visible,
          input:focus-visible,
          a:focus-visible {
            outline: 3px solid #93c5fd;
            outline-offset: 2px;
          }
          @media (prefers-color-scheme: dark) {
            body {
              background: #10141c;
              color: #e6e9ef;
            }
            main {
              background: #1b2130;
              box-shadow: none;
            }
            .muted {
              color: #a3acbd;
            }
            .problem {
              color: #f97066;
            }
            fieldset {
              border-color: #3a3f4b;
            }
            .badge {
              background: #4a3b00;
              color: #ffe58a;
            }
            button {
              background: #93b4fd;
              color: #0b1220;
            }
            button.secondary {
              background: #3a3f4b;
              color: #e6e9ef;
            }
            a {
              color: #93b4fd;
            }
          }
        </style>
      </head>
      <body>
        <main>
          <span class="badge">${w.sandbox}</span>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

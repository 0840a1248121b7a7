import { Hono } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { isTerminalStatus, type PaymentRecord } from '../../schemas/pay.ts';
import { banksFor, SANDBOX_BANKS } from './banks.ts';
import { PaymentStateError, type PaymentLedger } from './payment-ledger.ts';

/**
 * The hosted flow a customer is sent to (`flowUrl`): pick a bank, then authorise or cancel. It
 * stands in for the bank's own pages, so it uses no script at all; plain forms do the work.
 * After either button the browser goes back to the payment's `redirectUrl`, unchanged.
 */
export function flowPage(ledger: PaymentLedger): Hono {
  const app = new Hono();

  app.get('/:transactionId', (c) => {
    const payment = ledger.read(c.req.param('transactionId'));
    if (!payment) return c.html(page('Payment not found', html`<p>This payment link is not valid.</p>`), 404);
    if (isTerminalStatus(payment.status)) return c.html(finished(payment));
    return c.html(chooser(payment));
  });

  app.post('/:transactionId', async (c) => {
    const transactionId = c.req.param('transactionId');
    const payment = ledger.read(transactionId);
    if (!payment) return c.html(page('Payment not found', html`<p>This payment link is not valid.</p>`), 404);
    const form = await c.req.parseBody().catch((): Record<string, string | File> => ({}));
    const action = form['action'];
    const bank = SANDBOX_BANKS.find((candidate) => candidate.providerId === form['providerId']);
    try {
      if (action === 'cancel') ledger.cancel(transactionId, bank?.providerId);
      else if (action === 'authorise' && bank && banksFor(payment.currencyCode).includes(bank))
        ledger.authorise(transactionId, bank.providerId, bank.rejects ?? false);
      else return c.html(chooser(payment, 'Choose your bank to authorise the payment.'), 400);
    } catch (error) {
      if (error instanceof PaymentStateError) return c.html(finished(ledger.read(transactionId)!), 409);
      throw error;
    }
    return c.redirect(payment.redirectUrl, 303);
  });

  return app;
}

function amount(payment: PaymentRecord): string {
  return new Intl.NumberFormat('en-GB', { style: 'currency', currency: payment.currencyCode }).format(payment.amount);
}

function chooser(payment: PaymentRecord, problem?: string): HtmlEscapedString | Promise<HtmlEscapedString> {
  const banks = banksFor(payment.currencyCode);
  return page(
    'Pay by bank',
    html`<p class="amount">${amount(payment)}</p>
      <p class="muted">Reference ${payment.reference}</p>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
      <form method="post">
        <fieldset>
          <legend>Choose your bank</legend>
          ${banks.map(
            (bank, index) =>
              html`<label class="bank"
                ><input
                  type="radio"
                  name="providerId"
                  value="${bank.providerId}"
                  required
                  ${index === 0 ? 'checked' : ''}
                />
                ${bank.name}</label
              >`,
          )}
        </fieldset>
        <button type="submit" name="action" value="authorise">Authorise payment</button>
        <button type="submit" name="action" value="cancel" formnovalidate class="secondary">Cancel</button>
      </form>`,
  );
}

function finished(payment: PaymentRecord): HtmlEscapedString | Promise<HtmlEscapedString> {
  return page(
    'Payment finished',
    html`<p class="amount">${amount(payment)}</p>
      <p>This payment is ${payment.status.toLowerCase()}.</p>
      <p><a href="${payment.redirectUrl}">Return to the merchant</a></p>`,
  );
}

function page(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Sandbox bank</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            margin: 0;
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
          .bank {
            display: block;
            padding: 0.4rem 0;
          }
          button {
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
        </style>
      </head>
      <body>
        <main>
          <span class="badge">Sandbox</span>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

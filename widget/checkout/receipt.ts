/**
 * The receipt a completed payment shows (`part="receipt"`), a chunk loaded while the payment is
 * followed: what was paid, when, with which bank, and the reference to quote, with a copy button
 * and a layout that prints cleanly.
 */
import { css, html, nothing, type LitElement, type TemplateResult } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { addStyles } from '../shared/add-styles.ts';
import { formatMoney } from '../../lib/format-money.ts';
import { languageOf, type Language } from '../shared/i18n.ts';

interface ReceiptMessages {
  title: string;
  amount: string;
  reference: string;
  date: string;
  bank: string;
  quote: string;
  copy: string;
  copied: string;
}

const MESSAGES: Record<Language, ReceiptMessages> = {
  en: {
    title: 'Receipt',
    amount: 'Amount',
    reference: 'Reference',
    date: 'Paid on',
    bank: 'Bank',
    quote: 'Payment reference to quote',
    copy: 'Copy',
    copied: 'Copied',
  },
  de: {
    title: 'Beleg',
    amount: 'Betrag',
    reference: 'Referenz',
    date: 'Bezahlt am',
    bank: 'Bank',
    quote: 'Zahlungsreferenz für Rückfragen',
    copy: 'Kopieren',
    copied: 'Kopiert',
  },
  fr: {
    title: 'Reçu',
    amount: 'Montant',
    reference: 'Référence',
    date: 'Payé le',
    bank: 'Banque',
    quote: 'Référence du paiement à citer',
    copy: 'Copier',
    copied: 'Copié',
  },
  es: {
    title: 'Recibo',
    amount: 'Importe',
    reference: 'Referencia',
    date: 'Pagado el',
    bank: 'Banco',
    quote: 'Referencia del pago para consultas',
    copy: 'Copiar',
    copied: 'Copiado',
  },
  nl: {
    title: 'Betaalbewijs',
    amount: 'Bedrag',
    reference: 'Referentie',
    date: 'Betaald op',
    bank: 'Bank',
    quote: 'Betalingskenmerk voor vragen',
    copy: 'Kopiëren',
    copied: 'Gekopieerd',
  },
};

/** The receipt of one element: it remembers whether its reference was copied. */
export class Receipt {
  private copied = false;

  constructor(private readonly host: LitElement) {
    addStyles(host, receiptStyles);
  }

  view(payment: PaymentStatusView, locale: string): TemplateResult {
    const m = MESSAGES[languageOf(locale)];
    const when = payment.completedAt ?? payment.updatedAt;
    const row = (label: string, value: unknown) =>
      html`<dt>${label}</dt>
        <dd>${value}</dd>`;
    // The transfer's end-to-end id is what the customer's bank statement and the bank's staff know it by.
    const quote = payment.endToEndId;
    return html`<section part="receipt" class="receipt" aria-label=${m.title}>
      <dl>
        ${row(m.amount, formatMoney(payment.amount, payment.currencyCode, locale))}
        ${payment.reference ? row(m.reference, payment.reference) : nothing}
        ${row(
          m.date,
          new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(new Date(when)),
        )}
        ${payment.bankName ? row(m.bank, payment.bankName) : nothing}
        ${
          quote
            ? row(
                m.quote,
                html`<code part="receipt-quote">${quote}</code>
                  <button part="secondary" type="button" class="secondary copy" @click=${() => this.copy(quote)}>
                    ${this.copied ? m.copied : m.copy}
                  </button>`,
              )
            : nothing
        }
      </dl>
    </section>`;
  }

  private copy(text: string): void {
    void navigator.clipboard?.writeText(text).then(() => {
      this.copied = true;
      this.host.requestUpdate();
    });
  }
}

const receiptStyles = css`
  .receipt {
    container-type: inline-size;
  }
  .receipt dl {
    display: grid;
    grid-template-columns: auto 1fr;
    gap: 0.25em 1em;
    margin: 0.5em 0;
    font-size: 0.9em;
  }
  .receipt dt {
    color: var(--_muted);
  }
  .receipt dd {
    margin: 0;
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5em;
    overflow-wrap: anywhere;
  }
  /* In a card as narrow as a phone's or a shop's column, each label goes above its value: beside it, the
     longest label took half the width and the date and the reference to quote broke over several lines. */
  @container (max-width: 30em) {
    .receipt dl {
      grid-template-columns: 1fr;
      gap: 0;
    }
    .receipt dd {
      margin-block-end: 0.4em;
    }
  }
  button.secondary {
    background: transparent;
    color: var(--_text);
    border-color: var(--_muted);
  }
  .receipt button.copy {
    width: auto;
    min-height: 2rem;
    padding: 0.2em 0.8em;
  }
  @media print {
    .receipt button,
    .receipt ~ button {
      display: none;
    }
    .receipt dt,
    .receipt dd {
      color: #000;
    }
  }
`;

/**
 * The open-amount field, a chunk loaded only when the shop lets the customer choose the amount
 * (the proxy's open-amount mode, no `checkout` and no `amount` on the element). It reads what the
 * customer types the way their language writes numbers (`12,50` in de, fr, es and nl, `12.50` in
 * en), and says, as they type, why an amount cannot be paid.
 */
import { css, html, type LitElement, type TemplateResult } from 'lit';
import { addStyles } from '../shared/add-styles.ts';
import { compareDecimals } from '../../lib/money.ts';
import { formatMoney } from '../../lib/format-money.ts';
import { fill, languageOf, type Language } from '../shared/i18n.ts';

export interface AmountMessages {
  label: string;
  bounds: string;
  invalid: string;
  decimals: string;
  range: string;
  startAgain: string;
  changeAmount: string;
}

const MESSAGES: Record<Language, AmountMessages> = {
  en: {
    label: 'Amount',
    bounds: 'From {min} to {max}',
    invalid: 'Enter an amount such as {example}.',
    decimals: 'Use at most two decimals.',
    range: 'Enter an amount from {min} to {max}.',
    startAgain: 'Start again',
    changeAmount: 'Change amount',
  },
  de: {
    label: 'Betrag',
    bounds: 'Von {min} bis {max}',
    invalid: 'Geben Sie einen Betrag wie {example} ein.',
    decimals: 'Höchstens zwei Nachkommastellen.',
    range: 'Geben Sie einen Betrag von {min} bis {max} ein.',
    startAgain: 'Neu beginnen',
    changeAmount: 'Betrag ändern',
  },
  fr: {
    label: 'Montant',
    bounds: 'De {min} à {max}',
    invalid: 'Saisissez un montant comme {example}.',
    decimals: 'Deux décimales au plus.',
    range: 'Saisissez un montant de {min} à {max}.',
    startAgain: 'Recommencer',
    changeAmount: 'Modifier le montant',
  },
  es: {
    label: 'Importe',
    bounds: 'De {min} a {max}',
    invalid: 'Introduzca un importe como {example}.',
    decimals: 'Use como máximo dos decimales.',
    range: 'Introduzca un importe de {min} a {max}.',
    startAgain: 'Empezar de nuevo',
    changeAmount: 'Cambiar el importe',
  },
  nl: {
    label: 'Bedrag',
    bounds: 'Van {min} tot {max}',
    invalid: 'Vul een bedrag in zoals {example}.',
    decimals: 'Gebruik hoogstens twee decimalen.',
    range: 'Vul een bedrag in van {min} tot {max}.',
    startAgain: 'Opnieuw beginnen',
    changeAmount: 'Bedrag wijzigen',
  },
};

export const amountMessages = (locale: string): AmountMessages => MESSAGES[languageOf(locale)];

export interface Bounds {
  min: string;
  max: string;
  currencyCode: string;
}

/** What the customer typed: the amount as a decimal string, or why it is not one that can be paid. */
export type ParsedAmount = { amount: string } | { problem: 'empty' | 'invalid' | 'decimals' | 'range' };

/**
 * Reads an amount as the customer's language writes it. The language's decimal mark is accepted,
 * and so is the other mark when followed by one or two digits only (`12.50` typed in de); digit
 * grouping is accepted only where it is regular (`1.234,50` in de, `1,234.50` in en). Anything else
 * (signs, letters, `12,50` in en where the comma groups thousands) is refused, never guessed.
 */
export function parseAmount(text: string, locale: string, bounds: Bounds): ParsedAmount {
  const value = text.replace(/[\s\u00a0\u202f']/g, '');
  if (!value) return { problem: 'empty' };
  const comma = languageOf(locale) !== 'en';
  const [mark, group] = comma ? [',', '.'] : ['.', ','];
  const grouped = new RegExp(`^\\d{1,3}(\\${group}\\d{3})+(\\${mark}\\d+)?$`);
  let normal: string;
  if (/^\d+([.,]\d+)?$/.test(value) && (value.includes(mark) || /[.,]\d{1,2}$/.test(value) || /^\d+$/.test(value)))
    normal = value.replace(/[.,]/, '.');
  else if (grouped.test(value)) normal = value.split(group).join('').replace(mark, '.');
  else return { problem: 'invalid' };
  const [whole, fraction = ''] = normal.split('.');
  if (fraction.length > 2) return { problem: 'decimals' };
  const amount = `${whole!.replace(/^0+(?=\d)/, '')}${fraction ? `.${fraction}` : ''}`;
  if (compareDecimals(amount, bounds.min) < 0 || compareDecimals(amount, bounds.max) > 0) return { problem: 'range' };
  return { amount };
}

/** The field, its bounds, and the reason the amount cannot be paid (once the customer has typed). */
export function amountView(
  bounds: Bounds,
  locale: string,
  text: string,
  parsed: ParsedAmount,
  onInput: (text: string) => void,
  onEnter: () => void,
): TemplateResult {
  const m = amountMessages(locale);
  const money = (amount: string) => formatMoney(amount, bounds.currencyCode, locale);
  const words = { min: money(bounds.min), max: money(bounds.max), example: money('12.50') };
  const problem = 'problem' in parsed && parsed.problem !== 'empty' ? fill(m[parsed.problem], words) : '';
  return html`<div class="field">
    <label for="amount">${m.label} (${bounds.currencyCode})</label>
    <input
      id="amount"
      part="amount-input"
      inputmode="decimal"
      autocomplete="off"
      .value=${text}
      aria-invalid=${problem ? 'true' : 'false'}
      aria-describedby="amount-hint"
      @input=${(event: Event) => onInput((event.target as HTMLInputElement).value)}
      @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && onEnter()}
    />
    <p id="amount-hint" part="amount-hint" class=${problem ? 'hint danger' : 'hint'}>
      ${problem || fill(m.bounds, words)}
    </p>
  </div>`;
}

export const amountStyles = css`
  .field {
    display: grid;
    gap: 0.25em;
    /* Beside the sandbox badge down to narrow phones: the checkout's height does not depend on the width. */
    flex: 1 1 8em;
  }
  label {
    font-weight: 600;
  }
  input {
    box-sizing: border-box;
    inline-size: 100%;
    font: inherit;
    font-size: 1.25em;
    padding: 0.4em 0.6em;
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) * 0.5);
    background: var(--_background);
    color: var(--_text);
  }
  input:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 1px;
  }
  input[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  /* "Pay by bank" and "Pay with your phone" while the amount cannot be paid: visibly off (they stay
     focusable, aria-disabled, and say why when pressed); a busy button keeps its spinner instead. */
  button[aria-disabled='true']:not(:has(.spinner)) {
    opacity: 0.45;
    filter: grayscale(1);
    cursor: not-allowed;
  }
  .hint {
    margin: 0;
    font-size: 0.875em;
    color: var(--_muted);
  }
  .hint.danger {
    color: var(--_danger);
  }
`;

/**
 * The field's state for one element: what the customer typed and what it means. It asks its host
 * to render again as they type, and brings its own styles into the host's shadow root.
 */
export class AmountField {
  text = '';
  parsed: ParsedAmount = { problem: 'empty' };
  /** Whether to say what is wrong while the field is still empty (after a click on "Pay by bank"). */
  private touched = false;

  constructor(
    private readonly host: LitElement,
    readonly bounds: Bounds,
    private readonly onChange: () => void,
    /** Enter in the field: pay, as "Pay by bank" does (which says what is wrong with the amount instead). */
    private readonly onEnter: () => void,
  ) {
    addStyles(host, amountStyles);
  }

  m(locale: string): AmountMessages {
    return amountMessages(locale);
  }

  /** The amount to pay, or '' while what was typed cannot be paid. */
  get amount(): string {
    return 'amount' in this.parsed ? this.parsed.amount : '';
  }

  /** Puts an amount (a decimal string) in the field as the customer's language writes it, unless they typed one. */
  prefill(amount: string | undefined, locale: string): void {
    if (!this.text && amount) this.text = languageOf(locale) === 'en' ? amount : amount.replace('.', ',');
  }

  /** The customer tried to pay an amount that cannot be paid: say why, and put them in the field. */
  touch(): void {
    this.touched = true;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => this.host.renderRoot.querySelector('input')?.focus());
  }

  view(locale: string): TemplateResult {
    this.parsed = parseAmount(this.text, locale, this.bounds);
    const shown: ParsedAmount = this.touched && !this.text ? { problem: 'invalid' } : this.parsed;
    return amountView(
      this.bounds,
      locale,
      this.text,
      shown,
      (text) => {
        this.text = text;
        this.parsed = parseAmount(text, locale, this.bounds);
        this.onChange();
        this.host.requestUpdate();
      },
      this.onEnter,
    );
  }
}

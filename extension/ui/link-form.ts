import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { LINK_LANGUAGES, type LinkView, type NewLinkRequest } from '../../schemas/links.ts';
import { PAYMENT_CURRENCIES, REFERENCE_MAX } from '../../schemas/pay.ts';
import { ask } from './client.ts';
import { formValues } from './form-values.ts';
import { refusalText } from './refusal.ts';
import { choiceGroup, pageStyles } from './styles.ts';
import { LANGUAGE_NAMES, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-link-form': KassaLinkForm;
  }
  interface HTMLElementEventMap {
    'kassa-link-made': CustomEvent<LinkView>;
  }
}

const FIELDS = [
  'title',
  'description',
  'amount',
  'min',
  'max',
  'currencyCode',
  'reference',
  'expiresAt',
  'maxUses',
  'maxTotal',
  'language',
  'returnUrl',
] as const;
type Field = (typeof FIELDS)[number];
/** An amount as typed: `45`, `45.00` or `45,00`. */
const AMOUNT = /^\d+([.,]\d+)?$/;

/**
 * The field a refusal is about: the proxy's words name it first (`maxUses must be at least 1`,
 * `maxTotal: amount must be…`), or somewhere (`An open amount's currencyCode must be EUR`); the open
 * amount's bounds are the `min` and `max` fields. Undefined: about the link as a whole.
 */
export function fieldOf(message: string): Field | undefined {
  const named = (word: string): Field | undefined =>
    word === 'openAmount' ? 'min' : (FIELDS as readonly string[]).includes(word) ? (word as Field) : undefined;
  const first = named(/^(\w+)/.exec(message)?.[1] ?? '');
  if (first) return first;
  const found = /\b(openAmount|currencyCode|expiresAt|maxUses|maxTotal|returnUrl)\b/.exec(message);
  return found ? named(found[1]!) : undefined;
}

/**
 * Making a payment link, with the fields the proxy takes: a title and description the customer sees;
 * a fixed amount, or bounds of the amount the customer types; the currency; the reference, or a
 * template whose `{n}` is each payment's number; an expiry; reusable (with caps on the payments and
 * the total) or single-use; the page's language; the shop page to return to. What can be told here
 * is told under its field in the person's language; the proxy's refusals under the field they name.
 *
 * @fires kassa-link-made - The proxy made the link (its view as the detail).
 */
@customElement('kassa-link-form')
export class KassaLinkForm extends LitElement {
  static override styles = [
    ...pageStyles,
    choiceGroup,
    css`
      :host {
        display: block;
      }
    `,
  ];

  @state() private open = false;
  @state() private singleUse = false;
  @state() private problems: Partial<Record<Field, string>> = {};
  @state() private formError?: string;
  @state() private busy = false;
  private readonly locale = new UiLocale(this);

  /** What can be told before asking: each field's problem in the person's words. */
  private check(values: Record<Field, string>): Partial<Record<Field, string>> {
    const { links: w } = this.locale;
    const amount = (value: string) => !value.trim() || AMOUNT.test(value.trim());
    const expires = values.expiresAt ? new Date(values.expiresAt).getTime() : undefined;
    return {
      ...(values.title.trim() ? {} : { title: w.problemTitle }),
      ...(this.open || AMOUNT.test(values.amount.trim()) ? {} : { amount: w.problemAmount }),
      ...(!this.open || amount(values.min) ? {} : { min: w.problemBound }),
      ...(!this.open || amount(values.max) ? {} : { max: w.problemBound }),
      ...(values.reference.trim() ? {} : { reference: w.problemReference }),
      ...(expires === undefined || expires > Date.now() ? {} : { expiresAt: w.problemExpires }),
      ...(this.singleUse || !values.maxUses.trim() || /^[1-9]\d{0,8}$/.test(values.maxUses.trim())
        ? {}
        : { maxUses: w.problemUses }),
      ...(amount(values.maxTotal) ? {} : { maxTotal: w.problemBound }),
    };
  }

  /** The link as the proxy takes it, from the fields; what is left empty is left out. */
  private request(values: Record<Field, string>): NewLinkRequest {
    const decimal = (value: string) => value.trim().replace(',', '.') || undefined;
    const text = (value: string) => value.trim() || undefined;
    return {
      title: values.title.trim(),
      description: values.description.trim(),
      ...(this.open
        ? { openAmount: { min: decimal(values.min), max: decimal(values.max) } }
        : { amount: decimal(values.amount) }),
      currencyCode: values.currencyCode,
      reference: values.reference.trim(),
      expiresAt: values.expiresAt ? new Date(values.expiresAt).toISOString() : undefined,
      maxUses: this.singleUse ? 1 : values.maxUses.trim() ? Number(values.maxUses) : undefined,
      maxTotal: decimal(values.maxTotal),
      language: (text(values.language) as NewLinkRequest['language']) ?? undefined,
      returnUrl: text(values.returnUrl),
    };
  }

  private async showProblems(): Promise<void> {
    const first = FIELDS.find((field) => this.problems[field]);
    await this.updateComplete;
    if (first) this.renderRoot.querySelector<HTMLElement>(`form [name=${first}]`)?.focus();
  }

  private readonly make = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const values = formValues(form, FIELDS);
    this.formError = undefined;
    this.problems = this.check(values);
    if (Object.keys(this.problems).length) return this.showProblems();
    this.busy = true;
    try {
      const made = await ask({ kind: 'links.create', link: { ...this.request(values) } });
      form.reset();
      this.open = this.singleUse = false;
      this.dispatchEvent(new CustomEvent('kassa-link-made', { detail: made, bubbles: true, composed: true }));
    } catch (error) {
      const words = refusalText(error, this.locale);
      const field = fieldOf(words);
      if (field) {
        this.problems = { [field]: words };
        await this.showProblems();
      } else this.formError = words;
    } finally {
      this.busy = false;
    }
  };

  /** A field's problem, linked to it by `aria-describedby`. */
  private problem(field: Field) {
    const problem = this.problems[field];
    return problem ? html`<span class="error" id="${field}-problem">${problem}</span>` : nothing;
  }

  private field(field: Field, label: string, input: (invalid: string, described: string | typeof nothing) => unknown) {
    const invalid = this.problems[field] ? 'true' : 'false';
    const described = this.problems[field] ? `${field}-problem` : nothing;
    return html`<div class="stack">
      <label>${label} ${input(invalid, described)}</label>
      ${this.problem(field)}
    </div>`;
  }

  private text(field: Field, label: string, attributes: { maxlength: number; inputmode?: string; type?: string }) {
    return this.field(
      field,
      label,
      (invalid, described) =>
        html`<input
          name=${field}
          type=${attributes.type ?? 'text'}
          maxlength=${attributes.maxlength}
          inputmode=${attributes.inputmode ?? nothing}
          aria-invalid=${invalid}
          aria-describedby=${described}
        />`,
    );
  }

  private choice(name: string, legend: string, options: Array<[value: string, label: string, checked: boolean]>) {
    return html`<fieldset>
      <legend>${legend}</legend>
      ${options.map(
        ([value, label, checked]) =>
          html`<label class="choice"
            ><input
              type="radio"
              name=${name}
              value=${value}
              .checked=${checked}
              @change=${() => this.chose(name, value)}
            />
            ${label}</label
          >`,
      )}
    </fieldset>`;
  }

  private chose(name: string, value: string): void {
    if (name === 'kind') this.open = value === 'open';
    else this.singleUse = value === 'single';
    this.problems = {};
  }

  override render() {
    const { links: w } = this.locale;
    return html`<details>
      <summary>${w.make}</summary>
      <form aria-label=${w.make} novalidate @submit=${this.make}>
        ${this.text('title', w.title, { maxlength: 80 })}
        ${this.field(
          'description',
          w.description,
          (invalid, described) =>
            html`<textarea
              name="description"
              maxlength="500"
              rows="2"
              aria-invalid=${invalid}
              aria-describedby=${described}
            ></textarea>`,
        )}
        ${this.choice('kind', w.amountKind, [
          ['fixed', w.fixed, !this.open],
          ['open', w.open, this.open],
        ])}
        ${
          this.open
            ? html`${this.text('min', w.min, { maxlength: 20, inputmode: 'decimal' })}
              ${this.text('max', w.max, { maxlength: 20, inputmode: 'decimal' })}`
            : this.text('amount', w.amount, { maxlength: 20, inputmode: 'decimal' })
        }
        ${this.field(
          'currencyCode',
          w.currency,
          (invalid, described) =>
            html`<select name="currencyCode" aria-invalid=${invalid} aria-describedby=${described}>
              ${PAYMENT_CURRENCIES.map((code) => html`<option value=${code}>${code}</option>`)}
            </select>`,
        )}
        ${this.text('reference', w.reference, { maxlength: REFERENCE_MAX })}
        <p class="muted">${w.referenceHint}</p>
        ${this.text('expiresAt', w.expires, { maxlength: 20, type: 'datetime-local' })}
        ${this.choice('uses', w.useKind, [
          ['reusable', w.reusable, !this.singleUse],
          ['single', w.singleUse, this.singleUse],
        ])}
        ${this.singleUse ? nothing : this.text('maxUses', w.maxUses, { maxlength: 9, inputmode: 'numeric' })}
        ${this.text('maxTotal', w.maxTotal, { maxlength: 20, inputmode: 'decimal' })}
        ${this.field(
          'language',
          w.language,
          (invalid, described) =>
            html`<select name="language" aria-invalid=${invalid} aria-describedby=${described}>
              <option value="">${w.languageAuto}</option>
              ${LINK_LANGUAGES.map((code) => html`<option value=${code}>${LANGUAGE_NAMES[code]}</option>`)}
            </select>`,
        )}
        ${this.text('returnUrl', w.returnUrl, { maxlength: 2048, type: 'url' })}
        ${this.formError ? html`<p role="alert" class="error" id="make-error">${this.formError}</p>` : nothing}
        <button type="submit" ?disabled=${this.busy}>${w.makeButton}</button>
      </form>
    </details>`;
  }
}

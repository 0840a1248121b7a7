import { expect } from 'chai';
import { parseAmount } from '../../widget/checkout/amount-field.ts';
import type { KassaCheckout } from '../../widget/kassa-checkout.ts';
import { bank, mount, part, phase, stackInfo, stayOnPage, text, until } from './support.ts';

const BOUNDS = { min: '1', max: '500', currencyCode: 'EUR' };

/** An open-amount checkout with its own field (the main stack allows 1 to 500 EUR), in a language. */
async function openAmount(locale: string): Promise<KassaCheckout> {
  const { proxy } = await stackInfo();
  const element = mount({ proxy, reference: 'DONATION', locale });
  await phase(element, 'ready');
  await until(() => part(element, 'amount-input'), 'the amount field');
  return element;
}

function type(element: KassaCheckout, value: string): Promise<unknown> {
  const input = part(element, 'amount-input') as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  return element.updateComplete;
}

const payButton = (element: KassaCheckout) => part(element, 'button')!;

/** What each language calls the field, and how it writes twelve euros fifty and the bounds. */
const LANGUAGES = {
  en: {
    label: 'Amount (EUR)',
    ok: ['12.50', '12,50', '7'],
    bounds: 'From €1.00 to €500.00',
    range: 'Enter an amount from €1.00 to €500.00.',
  },
  de: {
    label: 'Betrag (EUR)',
    ok: ['12,50', '12.50', '7'],
    bounds: 'Von 1,00 € bis 500,00 €',
    range: 'Geben Sie einen Betrag von 1,00 € bis 500,00 € ein.',
  },
  fr: {
    label: 'Montant (EUR)',
    ok: ['12,50', '12.50', '7'],
    bounds: 'De 1,00 € à 500,00 €',
    range: 'Saisissez un montant de 1,00 € à 500,00 €.',
  },
  es: {
    label: 'Importe (EUR)',
    ok: ['12,50', '12.50', '7'],
    bounds: 'De 1,00 € a 500,00 €',
    range: 'Introduzca un importe de 1,00 € a 500,00 €.',
  },
  nl: {
    label: 'Bedrag (EUR)',
    ok: ['12,50', '12.50', '7'],
    bounds: 'Van € 1,00 tot € 500,00',
    range: 'Vul een bedrag in van € 1,00 tot € 500,00.',
  },
} as const;

describe('<kassa-checkout>: an amount the customer types', () => {
  describe('parseAmount', () => {
    it('reads the language’s decimal mark, the other mark before one or two digits, and regular grouping', () => {
      expect(parseAmount('12,50', 'de', BOUNDS)).to.deep.equal({ amount: '12.50' });
      expect(parseAmount('12.5', 'de', BOUNDS)).to.deep.equal({ amount: '12.5' });
      expect(parseAmount('1.000', 'de', { ...BOUNDS, max: '5000' })).to.deep.equal({ amount: '1000' });
      expect(parseAmount('1,000', 'en', { ...BOUNDS, max: '5000' })).to.deep.equal({ amount: '1000' });
      expect(parseAmount(' 007 ', 'en', BOUNDS)).to.deep.equal({ amount: '7' });
    });
    it('refuses junk, signs, three decimals and amounts out of bounds, never guessing', () => {
      for (const junk of ['abc', '-5', '+5', '1e3', '12,5,0', '€12', '1..2', '0x10'])
        expect(parseAmount(junk, 'en', BOUNDS), junk).to.deep.equal({ problem: 'invalid' });
      expect(parseAmount('10.999', 'en', BOUNDS)).to.deep.equal({ problem: 'decimals' });
      expect(parseAmount('10,999', 'fr', BOUNDS)).to.deep.equal({ problem: 'decimals' });
      expect(parseAmount('0.50', 'en', BOUNDS)).to.deep.equal({ problem: 'range' });
      expect(parseAmount('500.01', 'en', BOUNDS)).to.deep.equal({ problem: 'range' });
      expect(parseAmount('9'.repeat(40), 'en', BOUNDS)).to.deep.equal({ problem: 'range' });
      expect(parseAmount('', 'en', BOUNDS)).to.deep.equal({ problem: 'empty' });
    });
  });

  for (const [locale, words] of Object.entries(LANGUAGES)) {
    it(`${locale}: labelled, bounds shown, Pay by bank disabled with the reason until the amount can be paid`, async () => {
      const element = await openAmount(locale);
      const input = part(element, 'amount-input') as HTMLInputElement;
      expect(input.labels?.[0]?.textContent?.trim()).to.equal(words.label);
      expect(text(element, 'amount-hint').replace(/\u202f|\u00a0/g, ' ')).to.equal(words.bounds);
      expect(payButton(element).getAttribute('aria-disabled')).to.equal('true');
      await type(element, '600');
      expect(text(element, 'amount-hint').replace(/\u202f|\u00a0/g, ' ')).to.equal(words.range);
      expect(input.getAttribute('aria-invalid')).to.equal('true');
      expect(payButton(element).getAttribute('aria-disabled')).to.equal('true');
      for (const junk of ['abc', '-5', '10.999']) {
        await type(element, junk);
        expect(payButton(element).getAttribute('aria-disabled'), junk).to.equal('true');
        expect(text(element, 'amount-hint'), junk).not.to.equal('');
      }
      for (const ok of words.ok) {
        await type(element, ok);
        expect(payButton(element).getAttribute('aria-disabled'), ok).to.equal('false');
        expect(input.getAttribute('aria-invalid'), ok).to.equal('false');
      }
    });
  }

  it('pays what was typed, then shows the receipt, and Start again takes a second amount', async () => {
    const element = await openAmount('de');
    await type(element, '12,50');
    const created = stayOnPage(element);
    payButton(element).click();
    await bank((await created).flowUrl, 'authorise');
    await phase(element, 'completed');
    await until(() => part(element, 'receipt'), 'the receipt');
    expect(text(element, 'amount')).to.equal('12,50 €');
    const receipt = text(element, 'receipt');
    expect(receipt).to.include('Betrag 12,50 €');
    expect(receipt).to.include('Referenz DONATION');
    expect(receipt).to.include('Bank XYZ Bank');
    expect(text(element, 'receipt-quote')).to.match(/^E2E[0-9A-F]{24}$/);
    payButton(element).click();
    await phase(element, 'ready');
    expect((part(element, 'amount-input') as HTMLInputElement).value).to.equal('');
  });
});

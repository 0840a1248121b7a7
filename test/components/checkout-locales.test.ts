import { expect } from 'chai';
import { bank, createCheckout, mount, phase, readyCheckout, stackInfo, stayOnPage, text, until } from './support.ts';

/** What a customer reads in each language: amount, badge, reference, button, and a cancelled payment. */
const EXPECTED = {
  en: [
    '€42.50',
    'Sandbox',
    'Reference: ORDER-1',
    'Pay by bank',
    'The payment did not go through. You cancelled the payment at your bank.',
  ],
  de: [
    '42,50 €',
    'Testumgebung',
    'Verwendungszweck: ORDER-1',
    'Per Bank bezahlen',
    'Die Zahlung wurde nicht ausgeführt. Sie haben die Zahlung bei Ihrer Bank abgebrochen.',
  ],
  fr: [
    '42,50 €',
    'Environnement de test',
    'Référence : ORDER-1',
    'Payer avec votre banque',
    'Le paiement n’a pas abouti. Vous avez annulé le paiement auprès de votre banque.',
  ],
  es: [
    '42,50 €',
    'Entorno de pruebas',
    'Referencia: ORDER-1',
    'Pagar con tu banco',
    'El pago no se ha completado. Has cancelado el pago en tu banco.',
  ],
  nl: [
    '€ 42,50',
    'Testomgeving',
    'Kenmerk: ORDER-1',
    'Betalen via je bank',
    'De betaling is niet gelukt. Je hebt de betaling bij je bank geannuleerd.',
  ],
};

/** Intl's spaces (no-break, narrow no-break) as plain spaces, so the expectations stay readable. */
const plain = (value: string) => value.replace(/[\u00a0\u202f]/g, ' ');

describe('<kassa-checkout>: languages', () => {
  for (const [locale, [amount, badge, reference, button, cancelled]] of Object.entries(EXPECTED)) {
    it(`${locale}: every message and the amount's format`, async () => {
      const element = await readyCheckout({ locale });
      expect(plain(text(element, 'amount'))).to.equal(amount);
      expect(text(element, 'badge')).to.equal(badge);
      expect(plain(text(element, 'reference'))).to.equal(reference);
      expect(text(element, 'button')).to.equal(button);
      const created = stayOnPage(element);
      element.shadowRoot!.querySelector('button')!.click();
      const { flowUrl } = await created;
      // The bank's page is to speak the customer's language too.
      expect(new URL(flowUrl).searchParams.get('lang')).to.equal(locale);
      await bank(flowUrl, 'cancel');
      await phase(element, 'failed');
      expect(plain(text(element, 'status'))).to.equal(cancelled);
    });
  }

  it('a regional locale formats for its region and speaks its language (de-CH)', async () => {
    const element = await readyCheckout({ locale: 'de-CH' });
    expect(plain(text(element, 'amount'))).to.equal('EUR 42.50');
    expect(text(element, 'button')).to.equal('Per Bank bezahlen');
  });

  it('a language Kassa does not speak: English words, the locale’s number format', async () => {
    const element = await readyCheckout({ locale: 'pt-PT' });
    expect(text(element, 'button')).to.equal('Pay by bank');
    expect(plain(text(element, 'amount'))).to.equal('42,50 €');
  });

  it('without a locale: the nearest lang attribute, across shadow roots', async () => {
    const outer = document.createElement('div');
    outer.lang = 'nl';
    document.body.append(outer);
    try {
      const root = outer.appendChild(document.createElement('div')).attachShadow({ mode: 'open' });
      const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
      const element = mount({ proxy, checkout }, root);
      await phase(element, 'ready');
      expect(text(element, 'button')).to.equal('Betalen via je bank');
    } finally {
      outer.remove();
    }
  });

  it('follows <html lang> when a single-page app switches language', async () => {
    const element = await readyCheckout();
    expect(text(element, 'button')).to.equal('Pay by bank');
    document.documentElement.lang = 'es';
    try {
      await until(() => text(element, 'button') === 'Pagar con tu banco', 'Spanish');
    } finally {
      document.documentElement.lang = 'en';
    }
  });

  it('waits in the wait the proxy asked for, in words of the language', async () => {
    const { proxy } = await stackInfo('limited-de', { KASSA_CREATE_RATE_LIMIT: '1' });
    const first = mount({ proxy, checkout: await createCheckout({}, 'limited-de'), locale: 'de' });
    await phase(first, 'ready');
    const created = stayOnPage(first);
    first.shadowRoot!.querySelector('button')!.click();
    await created;
    const second = mount({ proxy, checkout: await createCheckout({}, 'limited-de'), locale: 'de' });
    await phase(second, 'ready');
    second.shadowRoot!.querySelector('button')!.click();
    await phase(second, 'error');
    expect(text(second, 'status')).to.match(
      /^Gerade gibt es zu viele Versuche\. Bitte versuchen Sie es in (60|59) Sekunden erneut\.$/,
    );
  });
});

import { expect } from 'chai';
import de from '../../widget/onramp/messages/de.ts';
import en from '../../widget/onramp/messages/en.ts';
import es from '../../widget/onramp/messages/es.ts';
import fr from '../../widget/onramp/messages/fr.ts';
import nl from '../../widget/onramp/messages/nl.ts';
import { button, connected, inside, mountOnramp, onrampWallets, text, typeAmount, until } from './onramp-element.ts';

/** What a customer reads in each language: the field's label, the bounds, the cost, the button, an amount out of bounds. */
const EXPECTED = {
  en: [
    'You receive',
    'From 1 eEUR to 500 eEUR per purchase.',
    'You pay €12.50 Sandbox',
    'Buy 12.5 eEUR',
    'The largest purchase is 500 eEUR.',
  ],
  de: [
    'Sie erhalten',
    'Von 1 eEUR bis 500 eEUR pro Kauf.',
    'Sie zahlen 12,50 € Testumgebung',
    '12,5 eEUR kaufen',
    'Der größte Kauf ist 500 eEUR.',
  ],
  fr: [
    'Vous recevez',
    'De 1 eEUR à 500 eEUR par achat.',
    'Vous payez 12,50 € Environnement de test',
    'Acheter 12,5 eEUR',
    'Le plus gros achat est de 500 eEUR.',
  ],
  es: [
    'Recibes',
    'De 1 eEUR a 500 eEUR por compra.',
    'Pagas 12,50 € Entorno de pruebas',
    'Comprar 12,5 eEUR',
    'La compra máxima es de 500 eEUR.',
  ],
  nl: [
    'Je ontvangt',
    'Van 1 eEUR tot 500 eEUR per aankoop.',
    'Je betaalt € 12,50 Testomgeving',
    '12,5 eEUR kopen',
    'De grootste aankoop is 500 eEUR.',
  ],
};

const placeholders = (message: string) => [...message.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('<kassa-onramp>: languages', () => {
  it('every language has every message, with the same placeholders as English', () => {
    for (const [language, catalog] of Object.entries({ de, fr, es, nl })) {
      expect(Object.keys(catalog).sort(), language).to.deep.equal(Object.keys(en).sort());
      for (const [key, message] of Object.entries(catalog))
        expect(placeholders(message), `${language}.${key}`).to.deep.equal(placeholders(en[key as keyof typeof en]));
    }
  });

  let account = 50;
  for (const [language, [label, bounds, cost, buy, above]] of Object.entries(EXPECTED)) {
    it(`${language}: the form, the amounts in the locale's notation, and the customer's own decimal separator`, async () => {
      const [wallet] = await onrampWallets([{ id: `locale-${language}`, account: account++ }]);
      const element = await connected(await mountOnramp({ locale: language }), wallet!);
      expect(inside(element, 'label[for="amount"]')!.textContent.trim()).to.equal(label);
      expect(text(element, 'amount-hint')).to.equal(bounds);
      await typeAmount(element, language === 'en' ? '12.5' : '12,5');
      expect(text(element, 'cost')).to.equal(cost);
      expect(button(element, buy!).getAttribute('part')).to.equal('button');
      await typeAmount(element, '501');
      expect(text(element, 'amount-hint')).to.equal(above);
    });
  }

  it('reads the nearest lang, follows the page’s <html lang> when it changes, and speaks English for a language it does not know', async () => {
    const root = document.documentElement;
    const pageLang = root.lang;
    const parent = document.createElement('div');
    parent.lang = 'de-CH';
    document.body.append(parent);
    try {
      const [wallet] = await onrampWallets([{ id: 'locale-page', account: 56 }]);
      const element = await connected(await mountOnramp({}, parent), wallet!);
      expect(text(element, 'amount-hint')).to.equal('Von 1 eEUR bis 500 eEUR pro Kauf.');
      parent.removeAttribute('lang');
      root.lang = 'nl';
      await until(() => text(element, 'amount-hint') === 'Van 1 eEUR tot 500 eEUR per aankoop.', 'Dutch');
      root.lang = 'ja';
      await until(() => text(element, 'amount-hint') === 'From 1 eEUR to 500 eEUR per purchase.', 'English');
    } finally {
      root.lang = pageLang;
      parent.remove();
    }
  });
});

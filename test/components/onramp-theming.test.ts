import { expect } from 'chai';
import {
  bought,
  button,
  connected,
  embeddedCheckout,
  inside,
  mountOnramp,
  onrampWallets,
  part,
  phase,
  until,
} from './onramp-element.ts';

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;

describe('<kassa-onramp>: theming', () => {
  const style = document.createElement('style');
  before(() => {
    style.textContent = `
      kassa-onramp.branded { --kassa-color-primary: #0f766e; --kassa-color-on-primary: #f0fdfa; --kassa-radius: 2px; --kassa-font-family: Georgia, serif; }
      kassa-onramp.branded::part(amount) { letter-spacing: 0.1em; }
      kassa-onramp.branded::part(checkout) { outline: 2px dashed #0f766e; }
    `;
    document.head.append(style);
  });
  after(() => style.remove());

  it('the same custom properties and parts as the other elements, and the embedded checkout draws with them too', async () => {
    const [wallet] = await onrampWallets([{ id: 'branded', account: 60 }]);
    const element = await connected(await mountOnramp({ class: 'branded' }), wallet!);
    const main = part(element, 'button')!;
    expect(getComputedStyle(main).backgroundColor).to.equal(rgb('#0f766e'));
    expect(getComputedStyle(main).color).to.equal(rgb('#f0fdfa'));
    expect(getComputedStyle(part(element, 'container')!).borderRadius).to.equal('2px');
    expect(getComputedStyle(part(element, 'container')!).fontFamily).to.equal('Georgia, serif');
    expect(getComputedStyle(part(element, 'amount')!).letterSpacing).to.not.equal('normal');
    await bought(element, '1');
    const checkout = await embeddedCheckout(element);
    expect(getComputedStyle(checkout).outlineStyle).to.equal('dashed');
    const pay = await until(() => checkout.shadowRoot?.querySelector<HTMLElement>('[part="button"]'), 'its button');
    expect(getComputedStyle(pay).backgroundColor).to.equal(rgb('#0f766e'));
    expect(button(element, 'Start over').className).to.equal('secondary');
  });

  it('light and dark: theme="dark" draws with the dark palette (the embedded checkout too), and the phase is an attribute for the page’s own styling', async () => {
    const [wallet] = await onrampWallets([{ id: 'dark', account: 61 }]);
    const element = await connected(await mountOnramp({ theme: 'dark' }), wallet!);
    expect(element.getAttribute('phase')).to.equal('ready');
    expect(getComputedStyle(part(element, 'container')!).backgroundColor).to.equal(rgb('#17191e'));
    expect(getComputedStyle(inside(element, '#amount')!).color).to.equal(rgb('#e6e8ec'));
    await bought(element, '1');
    expect(element.getAttribute('phase')).to.equal('paying');
    const checkout = await embeddedCheckout(element);
    expect(checkout.getAttribute('theme')).to.equal('dark');
    const surface = await until(
      () => checkout.shadowRoot?.querySelector<HTMLElement>('[part="container"]'),
      'its surface',
    );
    expect(getComputedStyle(surface).backgroundColor).to.equal(rgb('#17191e'));
    await phase(element, 'paying');
  });
});

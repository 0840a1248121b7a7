import { emulateMedia } from '@web/test-runner-commands';
import { expect } from 'chai';
import { part, readyCheckout } from './support.ts';

const style = (element: Element, name: string) => getComputedStyle(part(element, name)!);

const LIGHT = {
  surface: 'rgb(255, 255, 255)',
  text: 'rgb(29, 36, 51)',
  button: 'rgb(29, 78, 216)',
  onButton: 'rgb(255, 255, 255)',
};
const DARK = {
  surface: 'rgb(23, 25, 30)',
  text: 'rgb(230, 232, 236)',
  button: 'rgb(147, 180, 253)',
  onButton: 'rgb(11, 18, 32)',
};

function expectScheme(element: Element, scheme: typeof LIGHT): void {
  expect(style(element, 'container').backgroundColor, 'surface').to.equal(scheme.surface);
  expect(style(element, 'container').color, 'text').to.equal(scheme.text);
  expect(style(element, 'button').backgroundColor, 'button').to.equal(scheme.button);
  expect(style(element, 'button').color, 'button text').to.equal(scheme.onButton);
}

describe('<kassa-checkout>: theming', () => {
  afterEach(() => emulateMedia({ colorScheme: 'light' }));

  it('light by default', async () => {
    expectScheme(await readyCheckout(), LIGHT);
  });

  it('dark with theme="dark"', async () => {
    expectScheme(await readyCheckout({ theme: 'dark' }), DARK);
  });

  it('dark when the system prefers dark, unless theme="light"', async () => {
    await emulateMedia({ colorScheme: 'dark' });
    expectScheme(await readyCheckout(), DARK);
    expectScheme(await readyCheckout({ theme: 'light' }), LIGHT);
  });

  it('--kassa-* custom properties, on the element or inherited from the page, in both schemes', async () => {
    document.documentElement.style.setProperty('--kassa-color-primary', 'rgb(225, 29, 72)');
    try {
      const element = await readyCheckout({ theme: 'dark' });
      expect(style(element, 'button').backgroundColor).to.equal('rgb(225, 29, 72)');
      element.style.setProperty('--kassa-color-background', 'rgb(1, 2, 3)');
      element.style.setProperty('--kassa-radius', '0px');
      element.style.setProperty('--kassa-font-family', 'monospace');
      element.style.setProperty('--kassa-font-size', '20px');
      element.style.setProperty('--kassa-spacing', '7px');
      expect(style(element, 'container').backgroundColor).to.equal('rgb(1, 2, 3)');
      expect(style(element, 'container').borderTopLeftRadius).to.equal('0px');
      expect(style(element, 'container').paddingTop).to.equal('7px');
      expect(getComputedStyle(element).fontFamily).to.equal('monospace');
      expect(style(element, 'amount').fontSize).to.equal('35px');
    } finally {
      document.documentElement.style.removeProperty('--kassa-color-primary');
    }
  });

  it('::part() styles every part from the page', async () => {
    const sheet = document.createElement('style');
    sheet.textContent = `
      kassa-checkout.branded::part(button) { text-transform: uppercase; border-radius: 0; }
      kassa-checkout.branded::part(amount) { letter-spacing: 2px; }
      kassa-checkout.branded::part(badge) { display: none; }
      kassa-checkout.branded::part(reference) { font-style: italic; }
      kassa-checkout.branded::part(status) { text-align: center; }
      kassa-checkout.branded::part(container) { box-shadow: rgb(0, 0, 0) 0px 0px 0px 1px; }`;
    document.head.append(sheet);
    try {
      const element = await readyCheckout({ class: 'branded' });
      expect(style(element, 'button').textTransform).to.equal('uppercase');
      expect(style(element, 'button').borderTopLeftRadius).to.equal('0px');
      expect(style(element, 'amount').letterSpacing).to.equal('2px');
      expect(style(element, 'badge').display).to.equal('none');
      expect(style(element, 'reference').fontStyle).to.equal('italic');
      expect(style(element, 'status').textAlign).to.equal('center');
      expect(style(element, 'container').boxShadow).to.equal('rgb(0, 0, 0) 0px 0px 0px 1px');
    } finally {
      sheet.remove();
    }
  });

  it('the phase is an attribute the page can style by', async () => {
    const element = await readyCheckout();
    expect(element.matches('kassa-checkout[phase="ready"]')).to.equal(true);
  });
});

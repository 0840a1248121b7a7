import { expect } from 'chai';
import { button, connected, inside, installWallets, mountPanel, part, phase, reviewed } from './bridge-panel.ts';

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;

describe('<kassa-bridge>: theming', () => {
  const style = document.createElement('style');
  before(() => {
    style.textContent = `
      kassa-bridge.branded { --kassa-color-primary: #0f766e; --kassa-color-on-primary: #f0fdfa; --kassa-radius: 2px; --kassa-font-family: Georgia, serif; }
      kassa-bridge.branded::part(preview) { outline: 2px dashed #0f766e; }
      kassa-bridge.branded::part(amount) { letter-spacing: 0.1em; }
    `;
    document.head.append(style);
  });
  after(() => style.remove());

  it('the same custom properties and parts as the checkout', async () => {
    const [wallet] = await installWallets([{ id: 'branded', account: 2 }]);
    const element = await mountPanel({ class: 'branded' });
    await connected(element, wallet!);
    const main = part(element, 'button')!;
    expect(getComputedStyle(main).backgroundColor).to.equal(rgb('#0f766e'));
    expect(getComputedStyle(main).color).to.equal(rgb('#f0fdfa'));
    expect(getComputedStyle(part(element, 'container')!).borderRadius).to.equal('2px');
    expect(getComputedStyle(part(element, 'container')!).fontFamily).to.equal('Georgia, serif');
    expect(getComputedStyle(part(element, 'amount')!).letterSpacing).to.not.equal('normal');
    await reviewed(element, '0.01');
    expect(getComputedStyle(part(element, 'preview')!).outlineStyle).to.equal('dashed');
    expect(button(element, 'Back').className).to.equal('secondary');
  });

  it('light and dark: theme="dark" draws with the dark palette, and the phase is an attribute for the page’s own styling', async () => {
    const element = await mountPanel({ theme: 'dark', proxy: 'http://127.0.0.1:9' });
    await phase(element, 'error');
    expect(element.getAttribute('phase')).to.equal('error');
    expect(getComputedStyle(part(element, 'container')!).backgroundColor).to.equal(rgb('#17191e'));
    expect(getComputedStyle(part(element, 'status')!).color).to.equal(rgb('#fda29b'));
    expect(inside(element, '.surface') !== null, 'the surface').to.equal(true);
  });
});

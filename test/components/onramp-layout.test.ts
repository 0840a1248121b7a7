import { expect } from 'chai';
import { button, mountOnramp, onrampWallets, part, phase, text, until } from './onramp-element.ts';

/** The element's height on every frame while `run` runs. */
async function heightsDuring(element: HTMLElement, run: () => Promise<unknown>): Promise<number[]> {
  const heights: number[] = [];
  let watching = true;
  const watch = () => {
    heights.push(element.getBoundingClientRect().height);
    if (watching) requestAnimationFrame(watch);
  };
  watch();
  try {
    await run();
  } finally {
    watching = false;
  }
  return heights;
}

describe('<kassa-onramp>: layout', () => {
  it('takes the ready form’s height from its first render: loading, looking for wallets and the wallet list never move the page', async () => {
    const column = document.createElement('div');
    column.style.cssText = 'inline-size: 28rem; font-size: 16px';
    document.body.append(column);
    try {
      const [wallet] = await onrampWallets([{ id: 'layout', account: 95 }]);
      let element!: HTMLElement & { phase: string };
      const heights = await heightsDuring(column, async () => {
        element = await mountOnramp({}, column);
        await phase(element as never, 'connect');
        button(element as never, wallet!.name).click();
        await phase(element as never, 'ready');
        await until(() => /\d eEUR$/.test(text(element, 'balance')), 'the balance');
      });
      const rendered = heights.filter((height) => height > 0);
      expect(Math.min(...rendered), 'the first render').to.equal(25.75 * 16);
      expect(Math.max(...rendered), 'the ready form fits').to.equal(25.75 * 16);
      expect(part(element, 'container')!.getBoundingClientRect().height).to.equal(25.75 * 16);
    } finally {
      column.remove();
    }
  });

  it('an empty card while it loads: busy, with nothing in its status line to move', async () => {
    const element = await mountOnramp();
    expect(element.phase).to.equal('loading');
    await element.updateComplete;
    expect(part(element, 'container')!.getAttribute('aria-busy')).to.equal('true');
    expect(text(element, 'status')).to.equal('');
    await phase(element, 'connect');
  });
});

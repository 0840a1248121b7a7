import { expect } from 'chai';
import { defineOnUse } from '../../widget/define-on-use.ts';
import { until } from './support.ts';

let counter = 0;

describe('defineOnUse: elements loaded the first time a page uses them', () => {
  const added: Element[] = [];
  afterEach(() => added.splice(0).forEach((element) => element.remove()));
  const add = (tag: string, parent: ParentNode = document.body) => {
    const element = document.createElement(tag);
    parent.append(element);
    added.push(element);
    return element;
  };

  it('loads nothing until the tag appears, then loads once however many appear', async () => {
    const tag = `kassa-lazy-${++counter}`;
    let loads = 0;
    defineOnUse(tag, async () => {
      loads++;
      (await import('./fixtures/lazy-element.ts')).define(tag);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loads).to.equal(0);
    const wrapper = add('div');
    add(tag, wrapper);
    add(tag);
    await until(() => customElements.get(tag), tag);
    add(tag);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loads).to.equal(1);
  });

  it('loads at once when the page already has the tag', async () => {
    const tag = `kassa-lazy-${++counter}`;
    add(tag);
    defineOnUse(tag, async () => (await import('./fixtures/lazy-element.ts')).define(tag));
    await until(() => customElements.get(tag), tag);
  });

  it('tries again on the next change after a failed load', async () => {
    const tag = `kassa-lazy-${++counter}`;
    let attempts = 0;
    let reported = 0;
    const error = console.error;
    console.error = () => reported++;
    try {
      defineOnUse(tag, async () => {
        if (++attempts === 1) throw new Error('offline');
        (await import('./fixtures/lazy-element.ts')).define(tag);
      });
      add(tag);
      // The failure is reported once it is handled: from then on, the next change tries again.
      await until(() => reported === 1, 'the first attempt to fail');
      add('span');
      await until(() => customElements.get(tag), tag);
      expect(attempts).to.equal(2);
    } finally {
      console.error = error;
    }
  });
});

import { StoreUnavailableError } from '../store.ts';

/**
 * Turns taken one at a time, in the order asked: `take` resolves once every earlier turn has been
 * given back, with the function that gives this one back. One not reached within `withinMs` is
 * refused as the store unavailable (a Redis that stopped answering holds each turn until its commands
 * time out, and a line of them would otherwise wait one timeout each); its place passes on untaken.
 */
export class Turns {
  private last: Promise<void> = Promise.resolve();

  take(withinMs: number): Promise<() => void> {
    let giveBack!: () => void;
    const mine = new Promise<void>((resolve) => (giveBack = resolve));
    const before = this.last;
    this.last = before.then(() => mine);
    return new Promise((resolve, reject) => {
      let refused = false;
      const timer = setTimeout(() => {
        refused = true;
        reject(new StoreUnavailableError(new Error(`no turn within ${withinMs} ms: the store is slow to answer`)));
      }, withinMs);
      void before.then(() => {
        clearTimeout(timer);
        if (refused) giveBack();
        else resolve(giveBack);
      });
    });
  }
}

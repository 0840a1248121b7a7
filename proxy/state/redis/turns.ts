/**
 * Turns taken one at a time, in the order asked: `take` resolves once every earlier turn has been
 * given back, with the function that gives this one back.
 */
export class Turns {
  private last: Promise<void> = Promise.resolve();

  take(): Promise<() => void> {
    let giveBack!: () => void;
    const mine = new Promise<void>((resolve) => (giveBack = resolve));
    const before = this.last;
    this.last = before.then(() => mine);
    return before.then(() => giveBack);
  }
}

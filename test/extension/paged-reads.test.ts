/**
 * The extension's paged reads (a link's payments, a destination's deliveries): pages append, and only
 * the newest read's answer is shown, whatever order the answers come in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PagedReads, type ReadPage } from '../../extension/ui/paged-reads.ts';

/** A read the test answers when it chooses. */
function pendingRead() {
  let answer!: (page: ReadPage<string>) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<ReadPage<string>>((resolve, reject) => ([answer, fail] = [resolve, reject]));
  return { promise, answer, fail };
}

function setUp() {
  const asked: Array<{ cursor: string | undefined } & ReturnType<typeof pendingRead>> = [];
  const failures: string[] = [];
  let updates = 0;
  const reads = new PagedReads<string>(
    {
      addController() {},
      removeController() {},
      requestUpdate: () => void updates++,
      updateComplete: Promise.resolve(true),
    },
    {
      read: (cursor) => {
        const read = { cursor, ...pendingRead() };
        asked.push(read);
        return read.promise;
      },
      failed: (error) => void failures.push((error as Error).message),
    },
  );
  return { reads, asked, failures, updates: () => updates };
}

describe('extension: paged reads', () => {
  it('shows the first page, then appends the next one read from its cursor', async () => {
    const { reads, asked, updates } = setUp();
    const first = reads.load();
    asked[0]!.answer({ items: ['a', 'b'], nextCursor: 'c1' });
    await first;
    assert.deepEqual([reads.items, reads.nextCursor], [['a', 'b'], 'c1']);
    const more = reads.load(true);
    assert.equal(asked[1]!.cursor, 'c1');
    asked[1]!.answer({ items: ['c'], nextCursor: null });
    await more;
    assert.deepEqual([reads.items, reads.nextCursor], [['a', 'b', 'c'], null]);
    assert.equal(updates(), 2);
  });

  it('drops an answer overtaken by a newer read, or by clear (another item shown), failures included', async () => {
    const { reads, asked, failures } = setUp();
    const old = reads.load();
    const newer = reads.load();
    asked[1]!.answer({ items: ['new'], nextCursor: null });
    asked[0]!.answer({ items: ['old'], nextCursor: 'x' });
    await Promise.all([old, newer]);
    assert.deepEqual([reads.items, reads.nextCursor], [['new'], null]);

    const cleared = reads.load();
    reads.clear();
    asked[2]!.fail(new Error('refused'));
    asked[2]!.answer({ items: ['late'], nextCursor: null });
    await cleared;
    assert.equal(reads.items, undefined, 'nothing shown until the next read answers');
    assert.deepEqual(failures, []);

    const failing = reads.load();
    asked[3]!.fail(new Error('refused'));
    await failing;
    assert.deepEqual(failures, ['refused']);
  });

  it('reads nothing when there is nothing to read now', async () => {
    const reads = new PagedReads<string>(
      { addController() {}, removeController() {}, requestUpdate() {}, updateComplete: Promise.resolve(true) },
      { read: () => undefined, failed: () => assert.fail('no read, no failure') },
    );
    await reads.load();
    assert.equal(reads.items, undefined);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { anyValue, checkedSender, FUZZ_RUNS, rawBody, segment } from '../support/arbitraries.ts';
import { startStack, type Stack } from '../support/stack.ts';

/**
 * Property: whatever a counter sends to the counter routes, no 5xx, every refusal an `{error}`, and
 * nothing made by a request that was refused: the counter links in the store are exactly those
 * answered 201.
 */
describe('proxy: fast-check on the counter routes', () => {
  let stack: Stack;
  const send = checkedSender(() => stack.proxy.origin);

  /** Every counter link in the store, counted through the store itself. */
  const storedCounters = async () => {
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await stack.proxy.services.store.links.listLinks({ limit: 200, cursor, kind: 'counter' });
      count += page.links.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return count;
  };

  before(async () => {
    stack = await startStack({ env: { KASSA_COUNTER: '0.50..100 EUR' } });
  });
  after(() => stack.stop());

  it('POST /api/operator/counter: any body; only a 201 makes a counter link', async () => {
    const before = await storedCounters();
    let made = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ amount: '12.50', note: 'Table 4' }),
          anyValue.map((amount) => JSON.stringify({ amount, note: 'Table 4' })),
          anyValue.map((note) => JSON.stringify({ amount: '5', note })),
        ),
        async (raw) => {
          const answer = await send('/api/operator/counter', { raw, headers: stack.admin.headers });
          if (answer.status === 201) made++;
          else assert.equal(answer.status, 400, `${answer.status}: ${answer.text}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(await storedCounters(), before + made, 'a refused request made no counter link');
    assert.ok(made > 0, 'the valid bodies among them were taken');
  });

  it('any code in a counter route: a 404 (or a 400), never a 5xx, and nothing made or ended', async () => {
    const before = await storedCounters();
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('', '/events', '/cancel'), async (code, rest) => {
        const method = rest === '/cancel' ? 'POST' : 'GET';
        const path = `/api/operator/counter/${code}${rest}`;
        const answer = await send(path, {
          method,
          raw: method === 'POST' ? '{}' : undefined,
          headers: stack.admin.headers,
        });
        assert.ok([400, 404, 405].includes(answer.status), `${method} ${path}: ${answer.status} ${answer.text}`);
      }),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(await storedCounters(), before);
  });

  it('GET /api/operator/links?kind=…: any kind, a list of that kind or a 400, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom('link', 'counter'), fc.string({ maxLength: 40 })), async (kind) => {
        const query = new URLSearchParams({ kind }).toString();
        const answer = await send(`/api/operator/links?${query}`, { method: 'GET', headers: stack.admin.headers });
        if (answer.status === 200)
          assert.ok(
            (answer.body.links as Array<{ kind: string }>).every((link) => link.kind === kind),
            query,
          );
        else assert.equal(answer.status, 400, `${query}: ${answer.status}`);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

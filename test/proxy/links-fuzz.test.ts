import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { anyValue, checkedSender, FUZZ_RUNS, rawBody, segment } from '../support/arbitraries.ts';
import { http } from '../support/http.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

const VALID_LINK = {
  title: 'Lesson',
  description: 'Thursdays',
  amount: '5',
  currencyCode: 'EUR',
  reference: 'L-{n}',
  maxUses: 1000,
  maxTotal: '5000',
  language: 'de',
  returnUrl: `${SHOP_ORIGIN}/return`,
  expiresAt: '2099-01-01T00:00:00Z',
};
const VALID_OPEN_LINK = { ...VALID_LINK, amount: undefined, openAmount: { min: '2', max: '50' } };

/**
 * Property: whatever the merchant's server, an operator or a page sends to the link routes, no 5xx,
 * every refusal an `{error}`, and nothing made by a request that was refused: the links in the store
 * are exactly those answered 201, a link's uses exactly the checkouts answered 201.
 */
describe('proxy: fast-check on the link routes', () => {
  let stack: Stack;
  const send = checkedSender(() => stack.proxy.origin);
  const merchant = () => ({ Authorization: `Bearer ${stack.config.merchantKey}` });
  const operator = () => stack.admin.headers;

  /** Every link in the store, counted through the store itself. */
  const storedLinks = async () => {
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await stack.proxy.services.store.links.listLinks({ limit: 200, cursor });
      count += page.links.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return count;
  };

  before(async () => {
    stack = await startStack({ env: { KASSA_OPEN_AMOUNT: '1..500 EUR' } });
  });
  after(() => stack.stop());

  for (const [base, credential] of [
    ['/api/links', merchant],
    ['/api/operator/links', operator],
  ] as const)
    it(`POST ${base}: any body; only a 201 makes a link`, async () => {
      const before = await storedLinks();
      let made = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(rawBody(VALID_LINK), rawBody(VALID_OPEN_LINK)), async (raw) => {
          const answer = await send(base, { raw, headers: credential() });
          if (answer.status === 201) made++;
          else assert.ok([400, 403].includes(answer.status), `${answer.status}: ${answer.text}`);
        }),
        { numRuns: FUZZ_RUNS },
      );
      assert.equal(await storedLinks(), before + made, 'a refused request made no link');
      assert.ok(made > 0, 'the valid bodies among them were taken');
    });

  it('POST /api/links/{code}/checkout: any body; only a 201 holds a use and makes a checkout', async () => {
    const link = await stack.merchant('/api/links', { body: VALID_OPEN_LINK });
    const code = link.body.code as string;
    let started = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ amount: '12.50' }),
          anyValue.map((amount) => JSON.stringify({ amount })),
        ),
        async (raw) => {
          const answer = await send(`/api/links/${code}/checkout`, { raw, headers: { Origin: SHOP_ORIGIN } });
          if (answer.status === 201) {
            started++;
            assert.ok(await stack.proxy.services.store.getCheckout(answer.body.checkoutId as string));
          } else assert.equal(answer.status, 400, `${answer.status}: ${answer.text}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    const after = await stack.proxy.services.store.links.linkByCode(code);
    assert.deepEqual([after?.counter, after?.heldUses], [started, started], 'a refused request held no use');
    assert.ok(started > 0);
  });

  it('any code in a link route: no 5xx, a 404 or a 400, and nothing made', async () => {
    const before = await storedLinks();
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.constantFrom('', '/pause', '/resume', '/end', '/payments', '/payments/export', '/checkout'),
        async (code, rest) => {
          const method = rest === '' || rest.startsWith('/payments') ? 'GET' : 'POST';
          const path = `/api/links/${code}${rest}`;
          const headers = rest === '/checkout' ? { Origin: SHOP_ORIGIN } : merchant();
          const answer = await send(path, { method, raw: method === 'POST' ? '{}' : undefined, headers });
          assert.ok([400, 404, 405].includes(answer.status), `${method} ${path}: ${answer.status} ${answer.text}`);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(await storedLinks(), before);
  });

  it('GET /l/{code}: any code, any Accept-Language: a page or a 404, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(segment, fc.string({ maxLength: 100 }), async (code, language) => {
        // A page, not an {error} body: checked here rather than by the sender.
        const answer = await http(`${stack.proxy.origin}/l/${code}`, {
          headers: { Accept: 'text/html', 'Accept-Language': language.replace(/[^\t\x20-\x7e]/g, '') },
        });
        assert.equal(answer.status, 404, `${code}: ${answer.status}`);
        assert.match(answer.text, /^<!doctype html>/);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('GET /l/{code}?kassa_status=…: any status token on a link’s page is no receipt, and never a 5xx', async () => {
    const made = await send('/api/links', { raw: JSON.stringify(VALID_LINK), headers: merchant() });
    const code = made.body.code as string;
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), async (token) => {
        const query = new URLSearchParams({ kassa_status: token }).toString();
        const answer = await http(`${stack.proxy.origin}/l/${code}?${query}`, { headers: { Accept: 'text/html' } });
        assert.equal(answer.status, 200, `${query}: ${answer.status}`);
        assert.match(answer.text, /<main data-state="active">/);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('GET /l/{code}/qr.svg and qr.png: any code, a 404, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('qr.svg', 'qr.png'), async (code, file) => {
        const answer = await send(`/l/${code}/${file}`, { method: 'GET' });
        assert.equal(answer.status, 404, `${code}/${file}: ${answer.status} ${answer.text}`);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('GET /api/links: any limit and cursor, no 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.string({ maxLength: 300 }), async (limit, cursor) => {
        const query = new URLSearchParams({ limit, cursor }).toString();
        const answer = await send(`/api/links?${query}`, { method: 'GET', headers: merchant() });
        assert.ok([200, 400].includes(answer.status), `${query}: ${answer.status}`);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

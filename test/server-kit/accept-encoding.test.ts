/**
 * Accept-Encoding negotiation against RFC 9110 §12.5.3: known headers (what browsers and tools send,
 * q-values, `*`, `identity;q=0`), and properties over any header a client may send, checked against
 * the plainest model of the rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chooseEncoding, parseAcceptEncoding } from '../../server-kit/accept-encoding.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

const OFFERED = ['br', 'gzip', 'identity'] as const;

describe('Accept-Encoding (server-kit/accept-encoding.ts)', () => {
  it('picks the coding the client weighs highest, the server’s order breaking ties', () => {
    const cases: Array<[header: string | undefined, chosen: string | undefined]> = [
      // Chromium, Firefox, Safari, curl --compressed.
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, deflate, br', 'br'],
      ['gzip, deflate', 'gzip'],
      ['deflate, gzip;q=1.0, *;q=0.5', 'gzip'],
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['GZip', 'gzip'],
      ['  br ;  q=0.8 ,gzip;q=0.9', 'gzip'],
      ['gzip;q=1.0, br;q=0.999', 'gzip'],
      ['br;q=0.001', 'br'],
      // No header: a client that says nothing may not decode anything.
      [undefined, 'identity'],
      // An empty header: no coding wanted.
      ['', 'identity'],
      ['deflate, zstd', 'identity'],
      ['br;q=0', 'identity'],
      ['br;q=0, gzip;q=0', 'identity'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0.4', 'gzip'],
      ['*;q=0, gzip', 'gzip'],
      ['identity;q=0, gzip', 'gzip'],
      ['identity', 'identity'],
      ['identity;q=0.5, gzip;q=0.4', 'identity'],
      // Identity refused and nothing else on offer acceptable: 406.
      ['identity;q=0', undefined],
      ['*;q=0', undefined],
      ['deflate, identity;q=0', undefined],
      ['identity;q=0, *;q=0', undefined],
      // Malformed entries are skipped, not errors; a coding listed twice keeps its first weight.
      ['gzip;q=1.5', 'identity'],
      ['gzip;q=0.0001', 'identity'],
      ['gzip;q=', 'identity'],
      ['gzip;q=abc, br', 'br'],
      ['b r, gzip', 'gzip'],
      [',,gzip,,', 'gzip'],
      ['gzip;level=9', 'gzip'],
      ['gzip;q=0, gzip', 'identity'],
      ['br, br;q=0', 'br'],
    ];
    for (const [header, chosen] of cases) assert.equal(chooseEncoding(header, OFFERED), chosen, String(header));
  });

  it('parses q-values to three decimals, and nothing it cannot read', () => {
    assert.deepEqual(
      [...parseAcceptEncoding('br;q=0.5, gzip;Q=1.000, *;q=0, x;q=1.001, y;q=0.1234, z;q=1')],
      [
        ['br', 0.5],
        ['gzip', 1],
        ['*', 0],
        ['z', 1],
      ],
    );
  });

  /** An entry as a client may write it: a coding (or something that is not one) and any parameters. */
  const coding = fc.constantFrom('br', 'gzip', 'identity', '*', 'deflate', 'zstd', 'BR', 'Gzip', 'x-gzip');
  const qvalue = fc.oneof(
    fc.constantFrom('0', '1', '0.5', '1.000', '0.001', '0.999', '1.5', '-1', '', 'abc', '.5', '0.0001'),
    fc.integer({ min: 0, max: 1000 }).map((n) => (n / 1000).toString()),
  );
  const entry = fc
    .tuple(coding, fc.option(qvalue), fc.constantFrom('', ' ', '  '))
    .map(([name, q, space]) => (q === null ? `${space}${name}${space}` : `${space}${name}${space};${space}q=${q}`));
  const header = fc.oneof(
    fc.array(entry, { maxLength: 8 }).map((entries) => entries.join(',')),
    fc.string({ maxLength: 60 }),
  );

  /** The rule itself, written out: each coding's weight, then the best one above zero. */
  function model(text: string): string | undefined {
    const weights = parseAcceptEncoding(text);
    const weight = (name: string) =>
      weights.get(name) ?? weights.get('*') ?? (name === 'identity' ? Number.MIN_VALUE : 0);
    const best = Math.max(...OFFERED.map(weight));
    return best > 0 ? OFFERED.find((name) => weight(name) === best) : undefined;
  }

  it('for any header: never throws, offers only what is on offer, and chooses as the rule does', () => {
    fc.assert(
      fc.property(header, (text) => {
        const chosen = chooseEncoding(text, OFFERED);
        assert.ok(chosen === undefined || OFFERED.includes(chosen as (typeof OFFERED)[number]));
        assert.equal(chosen, model(text));
        for (const [, weight] of parseAcceptEncoding(text)) assert.ok(weight >= 0 && weight <= 1);
      }),
      { numRuns: FUZZ_RUNS * 4 },
    );
  });

  it('the order of distinct codings in the header does not matter', () => {
    const distinct = fc.uniqueArray(fc.tuple(coding, fc.option(qvalue)), {
      selector: ([name]) => name.toLowerCase(),
      maxLength: 6,
    });
    const write = (entries: Array<[string, string | null]>) =>
      entries.map(([name, q]) => (q === null ? name : `${name};q=${q}`)).join(', ');
    fc.assert(
      fc.property(
        distinct.chain((entries) =>
          fc.tuple(
            fc.constant(entries),
            fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }),
          ),
        ),
        ([entries, shuffled]) => {
          assert.equal(chooseEncoding(write(shuffled), OFFERED), chooseEncoding(write(entries), OFFERED));
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('a coding listed with a weight above zero is sent rather than no coding, unless identity is listed', () => {
    fc.assert(
      fc.property(fc.constantFrom('br', 'gzip'), qvalue, header, (name, q, rest) => {
        const weight = parseAcceptEncoding(`${name};q=${q}`).get(name);
        const others = parseAcceptEncoding(rest);
        fc.pre(weight !== undefined && weight > 0 && !others.has('identity') && !others.has('*'));
        assert.notEqual(chooseEncoding(`${name};q=${q}, ${rest}`, OFFERED), 'identity');
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

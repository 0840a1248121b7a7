import assert from 'node:assert/strict';
import fc from 'fast-check';
import { http, type HttpResult } from './http.ts';

/** Runs per property; CI and local runs can raise it (KASSA_FUZZ_RUNS). */
export const FUZZ_RUNS = Number(process.env.KASSA_FUZZ_RUNS ?? 150);

/** Any JSON-ish value, with the strings and numbers that break parsers most often. */
export const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: 0n, max: 2n ** 300n }).map(String),
  fc.constantFrom(
    null,
    true,
    '',
    ' ',
    '0',
    '-1',
    '1e400',
    '0.0',
    '00',
    '1.',
    '.5',
    'NaN',
    '0x',
    '0x00',
    '\u0000',
    '€',
    '💸',
    'x'.repeat(5000),
    '__proto__',
  ),
);

/**
 * A valid body with one field replaced by anything, dropped, or an extra field added: it reaches much
 * deeper into validation than random JSON does.
 */
export const mutatedBody = (valid: Record<string, unknown>) =>
  fc
    .record({
      field: fc.constantFrom(...Object.keys(valid), '__proto__', 'constructor', 'extra'),
      value: anyValue,
      drop: fc.boolean(),
    })
    .map(({ field, value, drop }) => {
      const body: Record<string, unknown> = { ...valid };
      if (drop) delete body[field];
      else Object.defineProperty(body, field, { value, enumerable: true, writable: true, configurable: true });
      return JSON.stringify(body);
    });

/** Request body text: arbitrary JSON, arbitrary text, a mutated valid body, empty, or truncated JSON. */
export const rawBody = (valid: Record<string, unknown>) =>
  fc.oneof(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
    mutatedBody(valid),
    fc.constant(''),
    fc.constant(JSON.stringify(valid).slice(0, 12)),
  );

/** A path segment of any text, encoded (never empty). */
/** A mint order the proxy takes (POST /api/orders): what the fuzz suites mutate. */
export const VALID_ORDER = {
  customerName: 'Ada',
  chainId: 31337,
  amount: '5',
  mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  customerOrder: 'fuzz',
  stableCoin: 'eUSD',
};

/** Any one path segment, encoded; but `.` and `..`, which a URL resolves away (`/l/.` is `/l/`, `%2E` too). */
export const segment = fc
  .string({ maxLength: 80 })
  .filter((value) => value !== '.' && value !== '..')
  .map((value) => encodeURIComponent(value) || 'x');

export interface FuzzInit {
  method?: string;
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * Sends one fuzzed request to the proxy at `origin()` and checks the property every fuzz suite holds:
 * never a 5xx, and every refusal an `{error}` body.
 */
export const checkedSender =
  (origin: () => string) =>
  async (path: string, init: FuzzInit): Promise<HttpResult> => {
    const response = await http(`${origin()}${path}`, {
      method: init.method ?? 'POST',
      raw: init.raw,
      headers: { 'Content-Type': 'application/json', ...init.headers },
    });
    assert.ok(
      response.status < 500,
      `${init.method ?? 'POST'} ${path} with ${init.raw?.slice(0, 200)} answered ${response.status}: ${response.text.slice(0, 300)}`,
    );
    if (response.status >= 400)
      assert.equal(typeof response.body.error, 'string', `error body: ${response.text.slice(0, 300)}`);
    return response;
  };

const octet = fc.integer({ min: 0, max: 255 });
/** An IPv4 address as four numbers. */
export const ipv4 = fc.tuple(octet, octet, octet, octet);
export const dotted = ([a, b, c, d]: readonly number[]) => `${a}.${b}.${c}.${d}`;
/** RFC 1918 (10/8, 172.16/12, 192.168/16), by its arithmetic rather than by Kassa's pattern. */
export const inRfc1918 = ([a, b]: readonly number[]) =>
  a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168);
/** A private-network IPv4 address, dotted, from each of the three blocks. */
export const privateIpv4 = fc
  .oneof(
    fc.tuple(fc.constant(10), octet, octet, octet),
    fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
    fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  )
  .map(dotted);
/** A dotted IPv4 address neither private (RFC 1918) nor loopback: public, link-local, shared, 172.15, 172.32, ... */
export const otherIpv4 = ipv4.filter((address) => !inRfc1918(address) && address[0] !== 127).map(dotted);

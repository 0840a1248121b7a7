/**
 * kassa/server's verifyEvent, given events signed as the proxy signs them (the `standardwebhooks`
 * package): genuine ones verify and come back typed; forged, stale, replayed, malformed ones are
 * refused with a KassaEventError naming why, and no input makes it throw anything else.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { KassaEventError, verifyEvent, type KassaEvent } from '../../server/index.ts';
import { anyValue, FUZZ_RUNS } from '../support/arbitraries.ts';

const newSecret = (bytes = 32) => `whsec_${randomBytes(bytes).toString('base64')}`;
const secret = newSecret();

const checkout = {
  checkoutId: 'chk_1',
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1',
  expiresAt: '2026-11-23T19:00:00.000Z',
  state: 'paid',
  environment: 'sandbox',
  metadata: { cart: ['Kassa T-shirt'] },
  createdAt: '2026-11-23T18:00:00.000Z',
  transactionId: 'tx_1',
  paidAt: '2026-11-23T18:01:00.000Z',
};
const payment = {
  transactionId: 'tx_1',
  status: 'COMPLETED',
  networkStatus: 'SETTLED',
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1',
  environment: 'sandbox',
  checkoutId: 'chk_1',
  retryable: false,
  initiatedAt: '2026-11-23T18:00:30.000Z',
  updatedAt: '2026-11-23T18:01:00.000Z',
  completedAt: '2026-11-23T18:01:00.000Z',
  networkPaymentId: null,
  paymentRail: null,
  providerId: 'sandbox-bank',
  lastCheckedAt: null,
};
const paid = { type: 'checkout.paid', timestamp: '2026-11-23T18:01:00.000Z', sequence: 2, data: checkout };

/** Headers as the proxy sends them: every secret signs, separated by spaces. */
function sign(
  body: string,
  secrets: string[] = [secret],
  id = `evt_${randomBytes(8).toString('hex')}`,
  at = new Date(),
) {
  const signature = secrets.map((one) => new Webhook(one).sign(id, at, body)).join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

function refused(run: () => unknown, reason: KassaEventError['reason']): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof KassaEventError, `not a KassaEventError: ${String(error)}`);
    assert.equal(error.reason, reason, error.message);
    assert.ok(error.message.length > 10);
    return true;
  });
}

describe('verifyEvent (kassa/server)', () => {
  it('returns the typed event for a genuine one, from Headers or a record in any case', () => {
    const body = JSON.stringify(paid);
    const headers = sign(body);
    const event: KassaEvent = verifyEvent(body, headers, secret);
    assert.equal(event.type, 'checkout.paid');
    if (event.type === 'checkout.paid') assert.equal(event.data.checkoutId, 'chk_1');
    assert.deepEqual(verifyEvent(body, new Headers(headers), secret), paid);
    // Another fetch implementation's headers: anything with get().
    assert.deepEqual(verifyEvent(body, { get: (name: string) => new Headers(headers).get(name) }, secret), paid);
    const shouted = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    assert.deepEqual(verifyEvent(new TextEncoder().encode(body), shouted, secret), paid);
  });

  it('while rotating: an event signed with both secrets verifies with either, and with the list', () => {
    const next = newSecret(48);
    const body = JSON.stringify(paid);
    const headers = sign(body, [secret, next]);
    assert.deepEqual(verifyEvent(body, headers, secret), paid);
    assert.deepEqual(verifyEvent(body, headers, next), paid);
    assert.deepEqual(verifyEvent(body, sign(body, [next]), [secret, next]), paid);
    refused(() => verifyEvent(body, headers, newSecret()), 'signature');
  });

  it('refuses a wrong secret, a changed body, and a body replayed under another id', () => {
    const body = JSON.stringify(paid);
    const headers = sign(body);
    refused(() => verifyEvent(body, headers, newSecret()), 'signature');
    refused(() => verifyEvent(body.replace('42.50', '4.25'), headers, secret), 'signature');
    refused(() => verifyEvent(JSON.stringify(JSON.parse(body), null, 1), headers, secret), 'signature');
    refused(() => verifyEvent(body, { ...headers, 'webhook-id': 'evt_another' }, secret), 'signature');
    refused(
      () =>
        verifyEvent(body, { ...headers, 'webhook-signature': 'v2,' + headers['webhook-signature'].slice(3) }, secret),
      'signature',
    );
  });

  it('refuses a timestamp more than 5 minutes away, either way, and accepts one just inside', () => {
    const body = JSON.stringify(paid);
    for (const offset of [-301, 302, -3600, 10 ** 6])
      refused(
        () => verifyEvent(body, sign(body, [secret], 'evt_1', new Date(Date.now() + offset * 1000)), secret),
        'timestamp',
      );
    for (const offset of [-290, 290])
      assert.deepEqual(
        verifyEvent(body, sign(body, [secret], 'evt_1', new Date(Date.now() + offset * 1000)), secret),
        paid,
      );
    // A stale event re-signed with a fresh timestamp by a forger without the secret still fails.
    const stale = sign(body, [secret], 'evt_1', new Date(Date.now() - 3600_000));
    refused(
      () => verifyEvent(body, { ...stale, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) }, secret),
      'signature',
    );
  });

  it('refuses missing, doubled or malformed headers', () => {
    const body = JSON.stringify(paid);
    const headers = sign(body);
    for (const name of Object.keys(headers) as Array<keyof typeof headers>) {
      const { [name]: _dropped, ...rest } = headers;
      refused(() => verifyEvent(body, rest, secret), 'headers');
      refused(() => verifyEvent(body, { ...headers, [name]: '' }, secret), 'headers');
      refused(() => verifyEvent(body, { ...headers, [name]: [headers[name], headers[name]] }, secret), 'headers');
      refused(() => verifyEvent(body, { ...headers, [name.toUpperCase()]: `${headers[name]}x` }, secret), 'headers');
    }
    refused(() => verifyEvent(body, { ...headers, 'webhook-timestamp': '12.5' }, secret), 'headers');
    refused(() => verifyEvent(body, { ...headers, 'webhook-timestamp': '2026-11-23T18:00:00Z' }, secret), 'headers');
    refused(() => verifyEvent(body, { ...headers, 'webhook-signature': 'not a signature' }, secret), 'headers');
    refused(() => verifyEvent(body, { ...headers, 'webhook-id': 'two words' }, secret), 'headers');
  });

  it('refuses a secret that is not whsec_ and base64 of 24 to 64 bytes', () => {
    const body = JSON.stringify(paid);
    const headers = sign(body);
    for (const bad of ['', 'whsec_', secret.slice(6), 'whsec_!!!!', newSecret(16), newSecret(80), 'mk_abcdef']) {
      refused(() => verifyEvent(body, headers, bad), 'secret');
    }
    refused(() => verifyEvent(body, headers, []), 'secret');
    refused(() => verifyEvent(body, headers, [secret, 'nope']), 'secret');
  });

  it('refuses a correctly signed body that is not a Kassa event', () => {
    for (const body of [
      '',
      'not json',
      '{}',
      JSON.stringify({ ...paid, type: 'checkout.refunded' }),
      JSON.stringify({ ...paid, data: {} }),
    ])
      refused(() => verifyEvent(body, sign(body), secret), 'body');
    refused(() => verifyEvent({ parsed: true } as unknown as string, sign('{}'), secret), 'body');
  });

  it('property: every genuine event of every type verifies, whatever its id and content', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x21-\x7e]{1,60}$/),
        fc.integer({ min: -290, max: 290 }),
        fc.nat({ max: 1e9 }),
        fc.constantFrom('checkout.paid', 'checkout.expired', 'payment.completed', 'payment.failed'),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
        fc.constantFrom(16 + 8, 32, 64),
        (id, offset, sequence, type, metadata, bytes) => {
          const key = newSecret(bytes);
          const body = JSON.stringify({
            ...paid,
            type,
            sequence,
            data: type.startsWith('checkout.')
              ? { ...checkout, metadata }
              : { ...payment, reference: JSON.stringify(metadata) },
          });
          const event = verifyEvent(body, sign(body, [key], id, new Date(Date.now() + offset * 1000)), key);
          assert.equal(event.type, type);
          assert.equal(event.sequence, sequence);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('property: no input throws anything but a KassaEventError, and nothing unsigned verifies', () => {
    const body = JSON.stringify(paid);
    const genuine = sign(body);
    const headerValue = fc.oneof(
      fc.string(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.constant(undefined),
      anyValue,
    );
    const headers = fc.oneof(
      fc.dictionary(
        fc.constantFrom('webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE', 'webhook-signature', 'x'),
        headerValue,
      ),
      fc.record({
        'webhook-id': fc.oneof(fc.constant(genuine['webhook-id']), fc.string()),
        'webhook-timestamp': fc.oneof(fc.constant(genuine['webhook-timestamp']), fc.string(), fc.integer().map(String)),
        'webhook-signature': fc.oneof(
          fc.constant(genuine['webhook-signature']),
          fc.string(),
          fc.base64String().map((s) => `v1,${s}`),
        ),
      }),
      anyValue,
    );
    const bodies = fc.oneof(
      fc.constant(body),
      fc.string(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      anyValue,
    );
    const secrets = fc.oneof(fc.constant(secret), fc.string(), fc.array(fc.string(), { maxLength: 3 }), anyValue);
    fc.assert(
      fc.property(bodies, headers, secrets, (rawBody, headerSet, key) => {
        try {
          const event = verifyEvent(rawBody as string, headerSet as Record<string, string>, key as string);
          // Only the genuine triple can verify.
          assert.equal(rawBody, body);
          assert.deepEqual(event, paid);
        } catch (error) {
          assert.ok(error instanceof KassaEventError, `threw ${String(error)}`);
        }
      }),
      { numRuns: FUZZ_RUNS * 4 },
    );
  });

  it('the example in docs/events.md verifies with the example secret, at its time only', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'events.md'), 'utf8');
    const example = /```http\n([\s\S]*?)\n\n(\{.*\})\n```/.exec(doc);
    assert.ok(example, 'the example request');
    const headers = Object.fromEntries(
      example[1]!
        .split('\n')
        .slice(1)
        .map((line) => line.split(': ') as [string, string]),
    );
    const exampleSecret = /example secret `(whsec_[^`]+)`/.exec(doc)![1]!;
    refused(() => verifyEvent(example[2]!, headers, exampleSecret), 'timestamp');
    mock.timers.enable({ apis: ['Date'], now: Number(headers['webhook-timestamp']) * 1000 + 30_000 });
    try {
      const event = verifyEvent(example[2]!, headers, exampleSecret);
      assert.equal(event.type, 'checkout.paid');
      assert.equal(event.sequence, 2);
    } finally {
      mock.timers.reset();
    }
  });
});

/**
 * HTTP/1.1 as the proxy speaks it on one connection, over a raw socket on loopback: a refused or
 * early-answered body does not cost the client its keep-alive connection (or, past the bound of what
 * is worth draining, says `Connection: close` and closes cleanly). And a body must say it is JSON.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Hono } from 'hono';
import { HttpProblem } from '../../proxy/http/http-problem.ts';
import { jsonContentType } from '../../proxy/http/middleware/json-content-type.ts';
import { listen, type Listening } from '../../server-kit/listen.ts';
import { parseMediaType } from '../../server-kit/media-type.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One client connection: requests written as raw bytes, answers read in order (Content-Length bodies). */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  ended = false;
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    // A client still sending when the proxy closes gets EPIPE or a reset: the answer it read is what counts.
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(data, () => resolve()));
  }

  /** The next answer on the connection; rejects if the connection closes first (or it never comes). */
  async answer(): Promise<RawAnswer> {
    const deadline = Date.now() + PATIENCE_MS;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended) throw new Error(`the connection closed before an answer (${this.buffer.length} bytes unread)`);
      if (Date.now() > deadline) throw new Error('no answer came');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  /** Resolves once the proxy has closed the connection (rejects if it never does). */
  async closed(): Promise<void> {
    const deadline = Date.now() + PATIENCE_MS;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('the connection was never closed');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): RawAnswer | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length']);
    assert.ok(Number.isInteger(length), `an answer with Content-Length: ${statusLine}`);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }
}

const MB = 1024 * 1024;

describe('proxy: keep-alive connections after an early answer', () => {
  let stack: Stack;
  let port: number;
  const open: RawConnection[] = [];
  const connection = () => {
    const made = new RawConnection(port);
    open.push(made);
    return made;
  };
  const post = (path: string, headers: Record<string, string>, length: number | 'chunked') =>
    [
      `POST ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n');
  const livez = 'GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

  before(async () => {
    stack = await startStack();
    port = stack.proxy.port;
  });
  after(async () => {
    for (const made of open) made.destroy();
    await stack?.stop();
  });

  it('a 413 for a 2 MB body keeps the connection: the next request on it is answered, on every route', async () => {
    const routes: Array<[string, Record<string, string>]> = [
      ['/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }],
      ['/api/payments', { Origin: SHOP_ORIGIN, 'Idempotency-Key': 'keep-alive-413' }],
      [`/hooks/payments/${stack.config.webhookSecret}`, {}],
    ];
    const body = Buffer.alloc(2 * MB, 'x');
    for (const [path, headers] of routes) {
      // Twice on one connection: the client reads each 413, then sends its next request.
      const client = connection();
      for (let round = 0; round < 2; round++) {
        await client.write(post(path, headers, body.length));
        await client.write(body);
        const refused = await client.answer();
        assert.equal(refused.status, 413, path);
        assert.match(JSON.parse(refused.body).error, /larger than/);
        assert.equal(refused.headers.connection, 'keep-alive', `${path}: the answer keeps the connection`);
        await client.write(livez);
        const next = await client.answer();
        assert.equal(next.status, 200, `${path}, round ${round + 1}: the next request is answered`);
        assert.deepEqual(JSON.parse(next.body), { ok: true });
      }
      assert.equal(client.ended, false, `${path}: the connection is still open`);
    }
  });

  it('a request sent right behind the refused body (pipelined) is answered too', async () => {
    const client = connection();
    await client.write(
      Buffer.concat([
        Buffer.from(post('/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }, 2 * MB)),
        Buffer.alloc(2 * MB, 'x'),
        Buffer.from(livez),
      ]),
    );
    assert.equal((await client.answer()).status, 413);
    assert.equal((await client.answer()).status, 200);
  });

  it('a client that sends the refused body slowly (over a second) keeps its connection too', async () => {
    const client = connection();
    await client.write(post('/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }, 2 * MB));
    const piece = Buffer.alloc(MB / 4, 'x');
    for (let i = 0; i < 8; i++) {
      await client.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    assert.equal((await client.answer()).status, 413);
    await client.write(livez);
    assert.equal((await client.answer()).status, 200);
  });

  it('a body answered early without being read (a 401) does not hold the connection up', async () => {
    const client = connection();
    const body = Buffer.alloc(20_000, 'x');
    for (let round = 0; round < 2; round++) {
      await client.write(post('/api/checkouts', { Authorization: 'Bearer wrong' }, body.length));
      await client.write(body);
      assert.equal((await client.answer()).status, 401);
      await client.write(livez);
      assert.equal((await client.answer()).status, 200, `round ${round + 1}`);
    }
  });

  it('past the drain bound, or of unknown length: 413 with Connection: close, then the proxy closes', async () => {
    // Declared 64 MB: not worth reading; the answer comes before the body and says so.
    const declared = connection();
    await declared.write(post('/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }, 64 * MB));
    await declared.write(Buffer.alloc(MB, 'x'));
    const refused = await declared.answer();
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.connection, 'close');
    await declared.closed();

    // Chunked, past the limit: how much is left cannot be known.
    const chunked = connection();
    const chunk = Buffer.alloc(16_384, 'x');
    await chunked.write(post('/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }, 'chunked'));
    for (let i = 0; i < 4; i++)
      await chunked.write(Buffer.concat([Buffer.from('4000\r\n'), chunk, Buffer.from('\r\n')]));
    await chunked.write('0\r\n\r\n');
    const answer = await chunked.answer();
    assert.equal(answer.status, 413);
    assert.equal(answer.headers.connection, 'close');
    await chunked.closed();
  });

  it('a chunked body within the limit is read and answered, and the connection stays', async () => {
    const client = connection();
    const json = JSON.stringify({ amount: '12.00', currencyCode: 'EUR', reference: 'CHUNKED-1' });
    await client.write(post('/api/checkouts', { Authorization: `Bearer ${stack.config.merchantKey}` }, 'chunked'));
    await client.write(`${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`);
    const created = await client.answer();
    assert.equal(created.status, 201, created.body);
    await client.write(livez);
    assert.equal((await client.answer()).status, 200);
  });
});

/** Header text as a client may send it: visible ASCII, spaces and tabs. */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) });
const TCHARS = "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-";
const token = fc.string({ unit: fc.constantFrom(...TCHARS), minLength: 1, maxLength: 12 });
const ows = fc.constantFrom('', ' ', '\t', '  ');
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, i) => (upper[i] ? char.toUpperCase() : char.toLowerCase())).join(''));
/** `; name=value` parameters other than charset, with tokens or quoted strings for values. */
const parameters = fc.array(
  fc.tuple(
    token.filter((name) => name.toLowerCase() !== 'charset'),
    fc.oneof(
      token,
      headerText.map((text) => `"${text.replace(/["\\]/g, '\\$&')}"`),
    ),
    ows,
    ows,
  ),
  { maxLength: 3 },
);
const withParameters = (essence: string, list: Array<[string, string, string, string]>, charset?: string) =>
  essence +
  list.map(([name, value, before, after]) => `${before};${after}${name}=${value}`).join('') +
  (charset === undefined ? '' : `; charset=${charset}`);

describe('a body must say it is JSON (jsonContentType, parseMediaType)', () => {
  let server: Listening;
  let reached = 0;
  before(async () => {
    const app = new Hono();
    app.use('*', jsonContentType());
    app.post('/echo', (c) => {
      reached++;
      return c.json({ ok: true });
    });
    app.onError((error, c) =>
      error instanceof HttpProblem ? c.json({ error: error.message }, error.status) : c.json({ error: 'bug' }, 500),
    );
    server = await listen(app.fetch);
  });
  after(() => server.close());

  const post = (contentType: string | undefined, body = '{}') =>
    fetch(`${server.origin}/echo`, {
      method: 'POST',
      // fetch gives a string body a type of its own: a Blob of none keeps "no Content-Type" exact.
      body: contentType === undefined ? new Blob([body]) : body,
      headers: contentType === undefined ? {} : { 'Content-Type': contentType },
    });

  it('application/json in any case, with any parameters and a UTF-8 charset or none, reaches the route', async () => {
    await fc.assert(
      fc.asyncProperty(
        randomCase('application/json'),
        parameters,
        fc.constantFrom(undefined, 'utf-8', 'UTF-8', '"utf-8"', 'Utf-8'),
        ows,
        async (essence, list, charset, padding) => {
          const type = `${padding}${withParameters(essence, list, charset)}${padding}`;
          assert.deepEqual(parseMediaType(type)?.essence, 'application/json', type);
          const answer = await post(type);
          assert.equal(answer.status, 200, type);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('any other type, another charset, or none: 415 naming application/json, and the route never runs', async () => {
    const other = fc
      .tuple(token, token)
      .map(([type, subtype]) => `${type}/${subtype}`)
      .filter((essence) => essence.toLowerCase() !== 'application/json');
    const badCharset = token.filter((charset) => charset.toLowerCase() !== 'utf-8');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(other, parameters).map(([essence, list]) => withParameters(essence, list)),
          fc.tuple(parameters, badCharset).map(([list, charset]) => withParameters('application/json', list, charset)),
          fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'),
        ),
        async (type) => {
          const before = reached;
          const answer = await post(type);
          assert.equal(answer.status, 415, type);
          assert.match(((await answer.json()) as { error: string }).error, /application\/json/);
          assert.equal(reached, before, 'the route did not run');
        },
      ),
      { numRuns: 150 },
    );
    const untyped = await post(undefined);
    assert.equal(untyped.status, 415);
    assert.match(((await untyped.json()) as { error: string }).error, /Content-Type is missing/);
  });

  it('whatever the header says: the route or a 415, never anything else; and no body needs no type', async () => {
    await fc.assert(
      fc.asyncProperty(headerText, async (type) => {
        const answer = await post(type);
        const parsed = parseMediaType(type);
        const json =
          parsed?.essence === 'application/json' &&
          [undefined, 'utf-8'].includes(parsed.parameters.charset?.toLowerCase());
        assert.equal(answer.status, json ? 200 : 415, JSON.stringify(type));
      }),
      { numRuns: 200 },
    );
    for (const type of [undefined, 'text/plain']) {
      const empty = await fetch(`${server.origin}/echo`, {
        method: 'POST',
        headers: { 'Content-Length': '0', ...(type ? { 'Content-Type': type } : {}) },
      });
      assert.equal(empty.status, 200, `an empty body as ${type}`);
    }
  });
});

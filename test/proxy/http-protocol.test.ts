/**
 * HTTP/1.1 as the proxy speaks it on one connection, over a raw socket on loopback: a refused or
 * early-answered body does not cost the client its keep-alive connection (or, past the bound of what
 * is worth draining, says `Connection: close` and closes cleanly).
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
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

  /** The next answer on the connection; rejects if the connection closes first, or after 10 s. */
  async answer(): Promise<RawAnswer> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended) throw new Error(`the connection closed before an answer (${this.buffer.length} bytes unread)`);
      if (Date.now() > deadline) throw new Error('no answer within 10 s');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  /** Resolves once the proxy has closed the connection, or rejects after 10 s. */
  async closed(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('the connection is still open after 10 s');
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

/**
 * server-kit/listen.ts: an idle keep-alive connection stays open past the point where Node's default
 * (5 s) would close it under a client about to reuse it (the client saw ECONNRESET: a fast-check run of
 * the status-read lane failed so under load).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { listen } from '../../server-kit/listen.ts';

describe('listening (server-kit/listen.ts)', () => {
  it('keeps an idle keep-alive connection open for the client to reuse, past 5 s, and says for how long', async () => {
    const server = await listen(() => new Response('ok'));
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    let closedByServer = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('end', () => (closedByServer = true));
    const ask = () => socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const answers = () => received.split('HTTP/1.1 200').length - 1;
    try {
      ask();
      while (answers() < 1) await sleep(20);
      assert.match(received, /Keep-Alive: timeout=65/i);
      await sleep(6_000);
      assert.equal(closedByServer, false, 'the server did not close the idle connection');
      ask();
      while (answers() < 2 && !closedByServer) await sleep(20);
      assert.equal(answers(), 2, 'the same connection answered again');
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});

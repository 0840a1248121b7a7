/**
 * The emulator's start options for running it where others reach it (compose.yaml): credentials chosen
 * beforehand, and the origin browsers and clients reach it at.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSandbox } from '../../sandbox/server.ts';
import { freePort } from '../support/free-port.ts';
import { http } from '../support/http.ts';

describe('sandbox: start options', () => {
  it('takes its ready key’s client secret and the order service’s API key as given', async () => {
    const clientSecret = 'cs_sandbox_chosen-beforehand-0001';
    const sandbox = await startSandbox({ clientSecret, ordersApiKey: 'ok_chosen-beforehand-0001' });
    try {
      assert.equal(sandbox.clientSecret, clientSecret);
      assert.equal(sandbox.ordersApiKey, 'ok_chosen-beforehand-0001');
      const token = await http(`${sandbox.pay}/v1/auth/token`, {
        body: { grant_type: 'client_credentials', client_secret: clientSecret },
      });
      assert.equal(token.status, 200);
      const wrong = await http(`${sandbox.pay}/v1/auth/token`, {
        body: { grant_type: 'client_credentials', client_secret: `${clientSecret}x` },
      });
      assert.equal(wrong.status, 401);
    } finally {
      await sandbox.stop();
    }
  });

  it('hands out addresses on its public origin, where it answers', async () => {
    const port = await freePort();
    const sandbox = await startSandbox({
      port,
      host: '127.0.0.1',
      publicOrigin: `http://localhost:${port}/`,
    });
    try {
      assert.equal(sandbox.origin, `http://localhost:${port}`);
      assert.equal(sandbox.pay, `http://localhost:${port}/pay`);
      const token = await http(`${sandbox.pay}/v1/auth/token`, {
        body: { grant_type: 'client_credentials', client_secret: sandbox.clientSecret },
      });
      assert.equal(token.status, 200);
    } finally {
      await sandbox.stop();
    }
  });
});

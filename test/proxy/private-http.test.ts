/**
 * KASSA_ALLOW_PRIVATE_HTTP with the sandbox's allowPrivateHttp (--allow-private-http): a payment whose
 * addresses are plain http on a private network, as `npm start -- --lan` makes them, goes out to the
 * bank page and back; without either allowance it is refused where each check stands. The private
 * addresses (10.77.0.x) are only written into URLs: every request goes to 127.0.0.1, where the servers
 * listen, and a URL on the network is followed by asking the same path there.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { freePort } from '../support/free-port.ts';
import { http } from '../support/http.ts';
import { startStack, type Stack } from '../support/stack.ts';

const SANDBOX_HOST = '10.77.0.1';
const PROXY_ON_NETWORK = 'http://10.77.0.2:8787';
const SHOP_ON_NETWORK = 'http://10.77.0.3:3000';

/** A URL on the network, asked where its server listens: the same path on `origin`. */
const here = (url: string, origin: string) => {
  const { pathname, search } = new URL(url);
  return `${origin}${pathname}${search}`;
};

describe('proxy and sandbox: plain http on a private network, only where allowed', () => {
  const running: Array<{ stop(): Promise<void> }> = [];
  after(async () => {
    for (const each of running.reverse()) await each.stop();
  });

  /**
   * The sandbox listening on 127.0.0.1 and handing out its bank pages on the network's address; what the
   * proxy and this test call is on loopback.
   */
  async function sandboxOnNetwork(allowPrivateHttp: boolean): Promise<{ sandbox: Sandbox; listening: string }> {
    const port = await freePort();
    const started = await startSandbox({
      port,
      publicOrigin: `http://${SANDBOX_HOST}:${port}`,
      allowPrivateHttp,
      settlementDelayMs: 0,
      mintDelayMs: null,
    });
    running.push(started);
    const listening = `http://127.0.0.1:${port}`;
    const sandbox = {
      ...started,
      pay: `${listening}/pay`,
      orders: `${listening}/stablecoin/v1/`,
      reforge: `${listening}/xchain/v1/reforge`,
      control: `${listening}/_sandbox`,
    };
    return { sandbox, listening };
  }

  async function stackOn(sandbox: Sandbox, env: Record<string, string>): Promise<Stack> {
    const stack = await startStack({
      reuseSandbox: sandbox,
      env: { KASSA_RETURN_URLS: `${SHOP_ON_NETWORK}/`, ...env },
    });
    running.push(stack);
    return stack;
  }

  const allowance = { KASSA_ALLOW_PRIVATE_HTTP: '1', KASSA_PUBLIC_URL: PROXY_ON_NETWORK };

  it('allowed on both: to the bank page on the network and back through the proxy to the shop, all plain http', async () => {
    const { sandbox, listening } = await sandboxOnNetwork(true);
    const stack = await stackOn(sandbox, allowance);
    assert.equal(new URL(sandbox.origin).hostname, SANDBOX_HOST);
    assert.ok(
      stack.logs.some((line) => /"level":"warn".*KASSA_ALLOW_PRIVATE_HTTP is on/.test(line)),
      'the proxy warns at start',
    );

    const paid = await stack.pay(await stack.checkout());
    assert.equal(paid.status, 201, paid.text);
    const { flowUrl, statusToken } = paid.body as { flowUrl: string; statusToken: string };
    assert.ok(flowUrl.startsWith(`${sandbox.origin}/pay/flow/`), flowUrl);

    // The bank page, and the customer's answer: the bank sends them to the proxy's return address on the network.
    assert.equal((await http(here(flowUrl, listening))).status, 200);
    const answered = await http(here(flowUrl, listening), {
      raw: 'action=authorise&providerId=bank_xyz',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(answered.status, 303);
    assert.equal(answered.headers.get('location'), `${PROXY_ON_NETWORK}/r/${statusToken}`);

    // The proxy's return address leads a computer on to the shop's page on the network, with the status.
    const back = await http(here(answered.headers.get('location')!, stack.proxy.origin));
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `${SHOP_ON_NETWORK}/?kassa_status=${statusToken}`);
  });

  it('the sandbox without --allow-private-http refuses the return address on the network, as the real service would', async () => {
    const { sandbox } = await sandboxOnNetwork(false);
    const stack = await stackOn(sandbox, allowance);
    const refused = await stack.pay(await stack.checkout());
    assert.equal(refused.status, 502, refused.text);
    assert.ok(
      stack.logs.some((line) =>
        line.includes('redirectUrl must be an absolute https URL (plain http only for loopback addresses)'),
      ),
      stack.logs.join('\n'),
    );
  });

  it('the proxy without KASSA_ALLOW_PRIVATE_HTTP hands no customer a bank page of plain http on the network', async () => {
    const { sandbox } = await sandboxOnNetwork(true);
    // Its return address is its own on loopback, which needs no allowance; the bank page's is the network's.
    const stack = await stackOn(sandbox, { KASSA_RETURN_URLS: 'http://127.0.0.1:9/return' });
    const refused = await stack.pay(await stack.checkout());
    assert.equal(refused.status, 502, refused.text);
    assert.doesNotMatch(refused.text, new RegExp(SANDBOX_HOST.replaceAll('.', '\\.')));
    assert.ok(
      stack.logs.some((line) => line.includes('flowUrl outside KASSA_FLOW_HOSTS') && line.includes(SANDBOX_HOST)),
      stack.logs.join('\n'),
    );
  });

  it('with credentials the payment service calls live, the allowance does not apply: the real rule holds', async () => {
    const { sandbox, listening } = await sandboxOnNetwork(true);
    const live = await http(`${listening}/_sandbox/keys`, { body: { environment: 'live' } });
    await http(`${listening}/_sandbox/keys/${live.body.keyId}/approve`, { body: {} });
    const stack = await stackOn(sandbox, { ...allowance, KASSA_PAY_CLIENT_SECRET: live.body.clientSecret });
    const refused = await stack.pay(await stack.checkout());
    assert.equal(refused.status, 500, refused.text);
    assert.match(refused.text, /the shop’s payment settings need attention/);
    const metrics = await http(`${listening}/_sandbox/metrics`);
    assert.equal(metrics.body['pay.initiate'], undefined, 'nothing was sent to the payment service');
    assert.ok(
      stack.logs.some(
        (line) =>
          line.includes('payment request does not fit the payment service') &&
          line.includes('plain http only for loopback addresses'),
      ),
      stack.logs.join('\n'),
    );
  });
});

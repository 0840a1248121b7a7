import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../../proxy/config-readers.ts';
import { loadConfig } from '../../proxy/config.ts';
import { isAllowedFlowUrl } from '../../proxy/payments/flow-hosts.ts';
import { parseAllowPrivateHttp } from '../../proxy/payments/payment-settings.ts';
import { otherIpv4, privateIpv4 } from '../support/arbitraries.ts';
import { failsOn, valid } from '../support/config-env.ts';

describe('KASSA_ALLOW_PRIVATE_HTTP: plain http on a private network, against a local sandbox only', () => {
  /** A proxy against a sandbox on this network, as `npm start -- --lan` runs one. */
  const local = (extra: Record<string, string> = {}) => ({
    ...valid(),
    KASSA_PAY_BASE_URL: 'http://192.168.1.20:4000/pay',
    KASSA_FLOW_HOSTS: '192.168.1.20:4000',
    ...extra,
  });
  const allowed = (extra: Record<string, string> = {}) => local({ KASSA_ALLOW_PRIVATE_HTTP: '1', ...extra });
  const port = fc.integer({ min: 1, max: 65535 });

  it('is off by default; on, it takes the public address and return URLs on a private network', () => {
    assert.equal(loadConfig(local()).allowPrivateHttp, false);
    const config = loadConfig(
      allowed({
        KASSA_PUBLIC_URL: 'http://192.168.1.20:8787',
        KASSA_RETURN_URLS: 'http://192.168.1.20:3000/,http://10.0.0.7:3000/donate,https://shop.example/return',
      }),
    );
    assert.equal(config.allowPrivateHttp, true);
    assert.equal(config.publicUrl, 'http://192.168.1.20:8787');
    assert.deepEqual(config.returnUrls, [
      'http://192.168.1.20:3000/',
      'http://10.0.0.7:3000/donate',
      'https://shop.example/return',
    ]);
    // Off, the same values stop the proxy, naming the setting and the way to allow them.
    failsOn(local({ KASSA_PUBLIC_URL: 'http://192.168.1.20:8787' }), 'KASSA_PUBLIC_URL', /http only for loopback\)/);
    failsOn(local({ KASSA_RETURN_URLS: 'http://192.168.1.20:3000/' }), 'KASSA_RETURN_URLS', /only for loopback\)/);
  });

  it('only against a payment service on loopback or a private-network address: never a live one', () => {
    for (const pay of ['http://127.0.0.1:4000/pay', 'http://localhost:4000/pay', 'https://10.1.2.3/pay'])
      assert.equal(loadConfig(allowed({ KASSA_PAY_BASE_URL: pay })).allowPrivateHttp, true, pay);
    for (const pay of ['https://pay.example/', 'http://8.8.8.8/pay', 'https://169.254.1.1/', 'https://sandbox.local/'])
      failsOn(
        allowed({ KASSA_PAY_BASE_URL: pay }),
        'KASSA_ALLOW_PRIVATE_HTTP',
        /local sandbox only: KASSA_PAY_BASE_URL/,
      );
    fc.assert(
      fc.property(otherIpv4, port, (host, p) =>
        failsOn(allowed({ KASSA_PAY_BASE_URL: `http://${host}:${p}/pay` }), 'KASSA_ALLOW_PRIVATE_HTTP'),
      ),
    );
  });

  it('its value: 1, true or yes turns it on, 0, false, no or nothing leaves it off, anything else stops the proxy', () => {
    for (const on of ['1', 'true', 'TRUE', 'yes'])
      assert.equal(parseAllowPrivateHttp(local({ KASSA_ALLOW_PRIVATE_HTTP: on })), true);
    for (const off of ['', '0', 'false', 'No'])
      assert.equal(parseAllowPrivateHttp(local({ KASSA_ALLOW_PRIVATE_HTTP: off })), false);
    assert.equal(parseAllowPrivateHttp({}), false);
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.constantFrom('on', 'off', 'enabled', '2', ' 1', 'constructor', '__proto__')),
        (value) => {
          let on: boolean;
          try {
            on = parseAllowPrivateHttp(local({ KASSA_ALLOW_PRIVATE_HTTP: value }));
          } catch (error) {
            assert.ok(error instanceof ConfigError && error.setting === 'KASSA_ALLOW_PRIVATE_HTTP', String(error));
            assert.ok(!['', '0', 'false', 'no', '1', 'true', 'yes'].includes(value.toLowerCase()), value);
            return;
          }
          assert.equal(on, ['1', 'true', 'yes'].includes(value.toLowerCase()), value);
        },
      ),
    );
  });

  it('fast-check: a private-network address is taken only with it; public addresses and names never, loopback always', () => {
    const publicUrl = (on: boolean, host: string, p: number) =>
      (on ? allowed : local)({ KASSA_PUBLIC_URL: `http://${host}:${p}` });
    const returnUrl = (on: boolean, host: string, p: number) =>
      (on ? allowed : local)({ KASSA_RETURN_URLS: `http://${host}:${p}/return` });
    fc.assert(
      fc.property(privateIpv4, port, fc.boolean(), (host, p, on) => {
        for (const [env, setting] of [
          [publicUrl(on, host, p), 'KASSA_PUBLIC_URL'],
          [returnUrl(on, host, p), 'KASSA_RETURN_URLS'],
        ] as const) {
          if (on) loadConfig(env);
          else failsOn(env, setting, /https/);
        }
      }),
    );
    fc.assert(
      fc.property(fc.oneof(otherIpv4, fc.domain()), port, fc.boolean(), (host, p, on) => {
        if (host === 'localhost') return;
        failsOn(publicUrl(on, host, p), 'KASSA_PUBLIC_URL', /https/);
        failsOn(returnUrl(on, host, p), 'KASSA_RETURN_URLS', /https/);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom('127.0.0.1', 'localhost', '[::1]'), port, fc.boolean(), (host, p, on) => {
        assert.equal(loadConfig(publicUrl(on, host, p)).publicUrl, `http://${host}:${p}`);
        assert.deepEqual(loadConfig(returnUrl(on, host, p)).returnUrls, [`http://${host}:${p}/return`]);
      }),
    );
  });

  it('fast-check: a payment page (flowUrl) of plain http on a private network only with it, on a configured host', () => {
    fc.assert(
      fc.property(privateIpv4, port, fc.webPath(), (host, p, path) => {
        const flowUrl = `http://${host}:${p}${path}`;
        assert.equal(isAllowedFlowUrl(flowUrl, [`${host}:${p}`], true), true, flowUrl);
        assert.equal(isAllowedFlowUrl(flowUrl, [`${host}:${p}`], false), false, flowUrl);
        assert.equal(isAllowedFlowUrl(flowUrl, [`${host}:${p === 1 ? 2 : p - 1}`], true), false, 'another port');
      }),
    );
    fc.assert(
      fc.property(fc.oneof(otherIpv4, fc.domain()), port, (host, p) => {
        if (host === 'localhost') return;
        assert.equal(isAllowedFlowUrl(`http://${host}:${p}/flow`, [`${host}:${p}`], true), false, host);
        assert.equal(isAllowedFlowUrl(`https://${host}:${p}/flow`, [`${host}:${p}`], true), true, host);
      }),
    );
    assert.equal(isAllowedFlowUrl('http://127.0.0.1:4000/pay/flow/1', ['127.0.0.1:4000']), true, 'loopback as before');
  });
});

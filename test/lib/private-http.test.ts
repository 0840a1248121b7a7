/**
 * The private-network exception to the address rule (lib/private-http.ts): which hosts are a private
 * network's, and that plain http to them is taken only when asked for, never to a public host or a name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isHttpsOrLocalHttp, isLocalNetworkHost, isPrivateIpv4 } from '../../lib/private-http.ts';
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import { dotted, inRfc1918, ipv4, otherIpv4, privateIpv4 } from '../support/arbitraries.ts';

const pathAndPort = fc.tuple(fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.webPath());
const url = (scheme: string, host: string, [port, path]: [number | undefined, string]) =>
  `${scheme}://${host}${port === undefined ? '' : `:${port}`}${path}`;

describe('a private network (lib/private-http.ts)', () => {
  it('isPrivateIpv4: exactly the dotted IPv4 addresses of 10/8, 172.16/12 and 192.168/16', () => {
    fc.assert(fc.property(ipv4, (address) => assert.equal(isPrivateIpv4(dotted(address)), inRfc1918(address))));
    for (const outside of ['169.254.1.2', '100.64.0.1', '172.15.0.1', '172.32.0.1', '192.169.0.1', '11.0.0.1'])
      assert.equal(isPrivateIpv4(outside), false, outside);
    // Only as URLs write them: no names, no leading zeros, no other spellings, nothing around them.
    for (const spelled of ['010.0.0.1', '10.0.0', '10.0.0.1.', ' 10.0.0.1', '10.0.0.256', '0xa.0.0.1', '167772161'])
      assert.equal(isPrivateIpv4(spelled), false, spelled);
    fc.assert(fc.property(fc.domain(), (name) => assert.equal(isPrivateIpv4(name), false, name)));
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (isPrivateIpv4(text)) assert.ok(inRfc1918(text.split('.').map(Number)), text);
      }),
    );
  });

  it('isLocalNetworkHost: loopback as before, or a private-network address', () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '10.1.2.3', '172.20.0.5', '192.168.1.20'])
      assert.equal(isLocalNetworkHost(host), true, host);
    for (const host of ['8.8.8.8', '169.254.10.1', 'pay.example', 'router.local', '[fd00::1]', '127.0.0.2'])
      assert.equal(isLocalNetworkHost(host), false, host);
  });

  it('without the allowance: the rule of url-rules.ts, for any input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (value) =>
        assert.equal(isHttpsOrLocalHttp(value, false), isHttpsOrLoopback(value)),
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(privateIpv4, pathAndPort, (address, rest) =>
        assert.equal(isHttpsOrLocalHttp(url('http', address, rest), false), false),
      ),
    );
  });

  it('with it: plain http to a private-network address too; never to a public address or a name, never credentials', () => {
    fc.assert(
      fc.property(privateIpv4, pathAndPort, (address, rest) => {
        assert.equal(isHttpsOrLocalHttp(url('http', address, rest), true), true);
        assert.equal(isHttpsOrLocalHttp(url('http', `user:pw@${address}`, rest), true), false);
      }),
    );
    fc.assert(
      fc.property(otherIpv4, pathAndPort, (address, rest) =>
        assert.equal(isHttpsOrLocalHttp(url('http', address, rest), true), false),
      ),
    );
    fc.assert(
      fc.property(fc.domain(), pathAndPort, (name, rest) => {
        if (name === 'localhost') return;
        assert.equal(isHttpsOrLocalHttp(url('http', name, rest), true), false, name);
        assert.equal(isHttpsOrLocalHttp(url('https', name, rest), true), true, name);
      }),
    );
    // Whatever it accepts is https, loopback, or plain http to a private-network address.
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (value) => {
        if (!isHttpsOrLocalHttp(value, true)) return;
        const { protocol, hostname, username, password } = new URL(value);
        assert.equal(username + password, '');
        assert.ok(protocol === 'https:' || isLocalNetworkHost(hostname), value);
      }),
      { numRuns: 500 },
    );
    // Loopback as before; other schemes never; a private address hidden in a name is a name.
    assert.equal(isHttpsOrLocalHttp('http://127.0.0.1:4000/pay', true), true);
    assert.equal(isHttpsOrLocalHttp('ftp://192.168.1.20/', true), false);
    assert.equal(isHttpsOrLocalHttp('javascript:alert(1)', true), false);
    assert.equal(isHttpsOrLocalHttp('http://192.168.1.20.evil.example/', true), false);
    assert.equal(isHttpsOrLocalHttp('http://[fd00::2]:8787/', true), false, 'IPv6 unique-local: not taken');
  });
});

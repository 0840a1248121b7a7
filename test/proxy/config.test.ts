import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../../proxy/config-readers.ts';
import { loadConfig, secretsOf } from '../../proxy/config.ts';
import { accentColours, contrast, FOCUS_GROUNDS } from '../../proxy/links/link-brand.ts';
import { LOGO_MAX_BYTES } from '../../proxy/links/link-settings.ts';
import { isAllowedFlowUrl } from '../../proxy/payments/flow-hosts.ts';
import { parseAllowPrivateHttp, parseOpenAmount } from '../../proxy/payments/payment-settings.ts';
import { otherIpv4, privateIpv4 } from '../support/arbitraries.ts';

const valid = (): Record<string, string> => ({
  KASSA_PAY_BASE_URL: 'https://pay.example/',
  KASSA_PAY_CLIENT_SECRET: 'cs_sandbox_0123456789abcdef',
  KASSA_ORDERS_BASE_URL: 'https://orders.example/v1/',
  KASSA_ORDERS_API_KEY: 'ok_0123456789abcdef',
  KASSA_REFORGE_BASE_URL: 'https://xchain.example/v1/reforge',
  KASSA_MERCHANT_KEY: 'mk_0123456789abcdef',
  KASSA_OPERATOR_TOKEN: 'op_0123456789abcdef',
  KASSA_ALLOWED_ORIGINS: 'https://shop.example, http://localhost:3000',
  KASSA_RETURN_URLS: 'https://shop.example/return,https://shop.example/other',
  KASSA_FLOW_HOSTS: 'pay.example,flow.example:8443',
  KASSA_WEBHOOK_SECRET: 'w'.repeat(40),
});

const failsOn = (env: Record<string, string | undefined>, setting: string, message?: RegExp) => {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.equal(error.setting, setting);
      assert.ok(error.message.startsWith(`${setting}: `));
      if (message) assert.match(error.message, message);
      return true;
    },
  );
};

describe('proxy configuration', () => {
  it('reads every setting, with defaults where optional', () => {
    const config = loadConfig(valid());
    assert.equal(config.port, 8787);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.payBaseUrl, 'https://pay.example', 'trailing slashes are dropped');
    assert.equal(config.ordersBaseUrl, 'https://orders.example/v1');
    assert.deepEqual(config.payClientSecrets, ['cs_sandbox_0123456789abcdef']);
    assert.deepEqual(config.allowedOrigins, ['https://shop.example', 'http://localhost:3000']);
    assert.deepEqual(config.returnUrls, ['https://shop.example/return', 'https://shop.example/other']);
    assert.deepEqual(config.flowHosts, ['pay.example', 'flow.example:8443']);
    assert.equal(config.dbPath, './data/kassa.db');
    assert.equal(config.openAmount, null);
    assert.equal(config.checkoutTtlSeconds, 86_400);
  });

  it('takes a second client secret for rotation', () => {
    const config = loadConfig({ ...valid(), KASSA_PAY_CLIENT_SECRET_NEXT: 'cs_sandbox_fedcba9876543210' });
    assert.deepEqual(config.payClientSecrets, ['cs_sandbox_0123456789abcdef', 'cs_sandbox_fedcba9876543210']);
  });

  it('needs no KASSA_OPERATOR_TOKEN any more: operators are people (issue 37)', () => {
    const { KASSA_OPERATOR_TOKEN: _, ...without } = valid();
    assert.equal(loadConfig(without).operatorToken, null);
  });

  it('names the setting that is missing or bad', () => {
    for (const setting of [
      'KASSA_PAY_BASE_URL',
      'KASSA_PAY_CLIENT_SECRET',
      'KASSA_ORDERS_BASE_URL',
      'KASSA_ORDERS_API_KEY',
      'KASSA_REFORGE_BASE_URL',
      'KASSA_MERCHANT_KEY',
      'KASSA_RETURN_URLS',
      'KASSA_FLOW_HOSTS',
      'KASSA_WEBHOOK_SECRET',
    ]) {
      failsOn({ ...valid(), [setting]: undefined }, setting);
    }
    failsOn({ ...valid(), PORT: '70000' }, 'PORT', /from 0 to 65535/);
    failsOn({ ...valid(), KASSA_PAY_BASE_URL: 'ftp://pay.example' }, 'KASSA_PAY_BASE_URL', /http\(s\) URL/);
    failsOn({ ...valid(), KASSA_PAY_BASE_URL: 'https://user:pw@pay.example' }, 'KASSA_PAY_BASE_URL');
    failsOn({ ...valid(), KASSA_MERCHANT_KEY: 'short' }, 'KASSA_MERCHANT_KEY', /at least 16 characters/);
    failsOn({ ...valid(), KASSA_OPERATOR_TOKEN: valid().KASSA_MERCHANT_KEY! }, 'KASSA_OPERATOR_TOKEN', /must differ/);
    failsOn({ ...valid(), KASSA_ALLOWED_ORIGINS: 'https://shop.example/path' }, 'KASSA_ALLOWED_ORIGINS', /no path/);
    failsOn({ ...valid(), KASSA_RETURN_URLS: 'http://shop.example/return' }, 'KASSA_RETURN_URLS', /https/);
    failsOn({ ...valid(), KASSA_FLOW_HOSTS: 'https://pay.example' }, 'KASSA_FLOW_HOSTS', /host or host:port/);
    failsOn({ ...valid(), KASSA_WEBHOOK_SECRET: 'guessable' }, 'KASSA_WEBHOOK_SECRET', /32 to 128/);
    failsOn({ ...valid(), KASSA_OPEN_AMOUNT: '5..1 EUR' }, 'KASSA_OPEN_AMOUNT', /min is greater than max/);
    failsOn({ ...valid(), KASSA_OPEN_AMOUNT: '1..5 USD' }, 'KASSA_OPEN_AMOUNT', /USD/);
    failsOn({ ...valid(), KASSA_COUNTER: '5..1 EUR' }, 'KASSA_COUNTER', /min is greater than max/);
    failsOn({ ...valid(), KASSA_LOG_LEVEL: 'loud' }, 'KASSA_LOG_LEVEL');
    failsOn({ ...valid(), KASSA_PUBLIC_URL: 'http://pay.shop.example' }, 'KASSA_PUBLIC_URL', /https/);
    failsOn({ ...valid(), KASSA_PUBLIC_URL: 'https://pay.shop.example/kassa' }, 'KASSA_PUBLIC_URL', /no path/);
    failsOn({ ...valid(), KASSA_PUBLIC_URL: 'pay.shop.example' }, 'KASSA_PUBLIC_URL');
  });

  it('the proxy’s public address: an https origin, or http on loopback; none by default', () => {
    assert.equal(loadConfig(valid()).publicUrl, null);
    assert.equal(
      loadConfig({ ...valid(), KASSA_PUBLIC_URL: 'https://Pay.Shop.example/' }).publicUrl,
      'https://pay.shop.example',
    );
    assert.equal(
      loadConfig({ ...valid(), KASSA_PUBLIC_URL: 'http://127.0.0.1:8787' }).publicUrl,
      'http://127.0.0.1:8787',
    );
  });

  it('state in PostgreSQL: a postgres:// URL and a bounded pool; never with Redis as well; its password is a secret', () => {
    assert.equal(loadConfig(valid()).database, null, 'SQLite by default');
    const url = 'postgresql://kassa:s3cret-database-password@db.internal:5432/kassa?sslmode=verify-full';
    const config = loadConfig({ ...valid(), KASSA_DATABASE_URL: url });
    assert.deepEqual(config.database, { url, poolSize: 10 });
    assert.ok(secretsOf(config).includes('s3cret-database-password'));
    assert.equal(
      loadConfig({ ...valid(), KASSA_DATABASE_URL: url, KASSA_DATABASE_POOL_SIZE: '25' }).database?.poolSize,
      25,
    );
    failsOn({ ...valid(), KASSA_DATABASE_URL: 'mysql://db/kassa' }, 'KASSA_DATABASE_URL', /postgres:\/\//);
    failsOn({ ...valid(), KASSA_DATABASE_URL: url, KASSA_DATABASE_POOL_SIZE: '0' }, 'KASSA_DATABASE_POOL_SIZE');
    failsOn(
      { ...valid(), KASSA_DATABASE_URL: url, KASSA_REDIS_URL: 'redis://127.0.0.1:6379' },
      'KASSA_DATABASE_URL',
      /KASSA_REDIS_URL/,
    );
  });

  it('parses open amounts as "min..max CUR"', () => {
    assert.deepEqual(parseOpenAmount('1..500 EUR'), { min: '1', max: '500', currencyCode: 'EUR' });
    assert.deepEqual(parseOpenAmount(' 0.50 .. 99.99 GBP '), { min: '0.50', max: '99.99', currencyCode: 'GBP' });
    assert.deepEqual(loadConfig({ ...valid(), KASSA_OPEN_AMOUNT: 'off' }).openAmount, null);
    assert.deepEqual(loadConfig(valid()).counterAmount, null, 'counter mode is off unless set');
    assert.deepEqual(loadConfig({ ...valid(), KASSA_COUNTER: '0.50..1000 EUR' }).counterAmount, {
      min: '0.50',
      max: '1000',
      currencyCode: 'EUR',
    });
    for (const bad of ['1-5 EUR', '1..5', '0..5 EUR', '1.001..5 EUR', '1..2000000 EUR'])
      assert.throws(() => parseOpenAmount(bad), bad);
  });

  it('reads a JSON file named by KASSA_CONFIG_FILE; the environment wins over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-config-'));
    const file = join(dir, 'kassa.json');
    writeFileSync(file, JSON.stringify({ ...valid(), PORT: 9000, KASSA_LOG_LEVEL: 'warn' }));
    const config = loadConfig({ KASSA_CONFIG_FILE: file, KASSA_LOG_LEVEL: 'error' });
    assert.equal(config.port, 9000);
    assert.equal(config.logLevel, 'error');
    failsOn({ KASSA_CONFIG_FILE: join(dir, 'missing.json') }, 'KASSA_CONFIG_FILE', /cannot read/);
    writeFileSync(file, '[1]');
    failsOn({ KASSA_CONFIG_FILE: file }, 'KASSA_CONFIG_FILE', /JSON object/);
  });

  it('operators’ SSO: off unless KASSA_OIDC_ISSUER is set; with it, each setting checked and named', () => {
    assert.equal(loadConfig(valid()).oidc, null);
    const oidc = {
      KASSA_OIDC_ISSUER: 'https://login.shop.example/realms/staff',
      KASSA_OIDC_CLIENT_ID: 'kassa',
      KASSA_OIDC_CLIENT_SECRET: 's3cr3t-from-the-provider',
      KASSA_OIDC_ALLOWED_DOMAINS: 'Shop.example, shop.co.uk',
      KASSA_OIDC_ROLES: 'kassa-admins:admin, kassa-finance:finance,urn:kassa:support:support',
    };
    const config = loadConfig({ ...valid(), ...oidc });
    assert.deepEqual(config.oidc?.allowedDomains, ['shop.example', 'shop.co.uk']);
    assert.equal(config.oidc?.roleClaim, 'groups', 'the group claim by default');
    assert.deepEqual(
      [...config.oidc.roles],
      [
        ['kassa-admins', 'admin'],
        ['kassa-finance', 'finance'],
        ['urn:kassa:support', 'support'],
      ],
      'a value may hold colons: the role follows the last',
    );
    assert.ok(secretsOf(config).includes('s3cr3t-from-the-provider'), 'the client secret is kept out of logs');
    assert.equal(
      loadConfig({ ...valid(), ...oidc, KASSA_OIDC_ISSUER: 'http://127.0.0.1:9/' }).oidc?.issuer,
      'http://127.0.0.1:9/',
    );
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_ISSUER: 'http://login.shop.example' }, 'KASSA_OIDC_ISSUER', /https/);
    failsOn({ ...valid(), KASSA_OIDC_CLIENT_ID: 'kassa' }, 'KASSA_OIDC_ISSUER', /required when KASSA_OIDC_CLIENT_ID/);
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_CLIENT_SECRET: '' }, 'KASSA_OIDC_CLIENT_SECRET', /required/);
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_CLIENT_ID: 'has space' }, 'KASSA_OIDC_CLIENT_ID');
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_ALLOWED_DOMAINS: '' }, 'KASSA_OIDC_ALLOWED_DOMAINS', /required/);
    failsOn(
      { ...valid(), ...oidc, KASSA_OIDC_ALLOWED_DOMAINS: 'shop.example,@evil' },
      'KASSA_OIDC_ALLOWED_DOMAINS',
      /@evil/,
    );
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_ROLES: 'kassa-admins:root' }, 'KASSA_OIDC_ROLES', /kassa-admins:root/);
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_ROLES: 'a:admin,a:viewer' }, 'KASSA_OIDC_ROLES', /twice/);
    failsOn({ ...valid(), ...oidc, KASSA_OIDC_ROLE_CLAIM: 'groups and roles' }, 'KASSA_OIDC_ROLE_CLAIM');
  });

  it('fast-check: any value of any setting gives a valid config or a ConfigError naming a setting', () => {
    const settings = Object.keys(valid()).concat([
      'PORT',
      'KASSA_OPEN_AMOUNT',
      'KASSA_COUNTER',
      'KASSA_CHECKOUT_TTL_SECONDS',
      'KASSA_RATE_LIMIT',
      'KASSA_PAY_CLIENT_SECRET_NEXT',
      'KASSA_PUBLIC_URL',
      'KASSA_DATABASE_URL',
      'KASSA_DATABASE_POOL_SIZE',
      'KASSA_ALLOW_PRIVATE_HTTP',
      'KASSA_OIDC_ISSUER',
      'KASSA_OIDC_ALLOWED_DOMAINS',
      'KASSA_OIDC_ROLES',
      'KASSA_OIDC_ROLE_CLAIM',
    ]);
    fc.assert(
      fc.property(
        fc.constantFrom(...settings),
        fc.oneof(fc.string(), fc.webUrl(), fc.constant('')),
        (setting, value) => {
          try {
            loadConfig({ ...valid(), [setting]: value });
          } catch (error) {
            assert.ok(error instanceof ConfigError, `${setting}=${JSON.stringify(value)} threw ${String(error)}`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

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

describe('the merchant’s look on link pages (KASSA_MERCHANT_*)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-logo-'));
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(40)]);
  const named = { KASSA_MERCHANT_NAME: 'Café Lumen' };

  it('none by default: Kassa’s own look', () => {
    assert.deepEqual(loadConfig(valid()).merchant, { name: null, logo: null, accent: null });
  });

  it('a name, a logo file (inlined as a data: URL) and a colour (#rgb or #rrggbb)', () => {
    const config = loadConfig({
      ...valid(),
      ...named,
      KASSA_MERCHANT_LOGO: file('logo.png', png),
      KASSA_MERCHANT_COLOR: '#14D',
    });
    assert.deepEqual(config.merchant, {
      name: 'Café Lumen',
      logo: `data:image/png;base64,${png.toString('base64')}`,
      accent: '#1144dd',
    });
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 1"/>';
    assert.match(
      loadConfig({ ...valid(), ...named, KASSA_MERCHANT_LOGO: file('logo.svg', svg) }).merchant.logo!,
      /^data:image\/svg\+xml;base64,/,
    );
  });

  it('a bad colour stops the start, naming the setting', () => {
    for (const colour of ['blue', '#12345', '#gggggg', 'rgb(0,0,0)', '#1234567', '1f4fd1'])
      failsOn({ ...valid(), KASSA_MERCHANT_COLOR: colour }, 'KASSA_MERCHANT_COLOR', /#rrggbb or #rgb/);
  });

  it('a bad logo stops the start: a URL, a missing file, a folder, not an image, too big, or no name for it', () => {
    const logo = (value: string, extra: Record<string, string> = named) => ({
      ...valid(),
      ...extra,
      KASSA_MERCHANT_LOGO: value,
    });
    failsOn(logo('https://cdn.example/logo.png'), 'KASSA_MERCHANT_LOGO', /not a URL/);
    failsOn(logo(join(dir, 'missing.png')), 'KASSA_MERCHANT_LOGO', /cannot read .*missing\.png/);
    failsOn(logo(dir), 'KASSA_MERCHANT_LOGO', /not a file/);
    failsOn(logo(file('logo.txt', 'hello')), 'KASSA_MERCHANT_LOGO', /not a PNG, JPEG, GIF, WebP or SVG image/);
    failsOn(logo(file('page.html', '<html><svg></svg></html>')), 'KASSA_MERCHANT_LOGO', /not a PNG/);
    const big = file('big.png', Buffer.concat([png, Buffer.alloc(LOGO_MAX_BYTES)]));
    failsOn(logo(big), 'KASSA_MERCHANT_LOGO', new RegExp(`at most ${LOGO_MAX_BYTES} bytes`));
    failsOn(logo(file('ok.png', png), {}), 'KASSA_MERCHANT_LOGO', /needs KASSA_MERCHANT_NAME/);
    failsOn({ ...valid(), KASSA_MERCHANT_NAME: 'x'.repeat(81) }, 'KASSA_MERCHANT_NAME', /at most 80/);
    failsOn({ ...valid(), KASSA_MERCHANT_NAME: 'Tab\there' }, 'KASSA_MERCHANT_NAME', /control characters/);
  });

  it('fast-check: any colour gives button text of AA contrast and a focus ring of 3:1 in both themes', () => {
    const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);
    fc.assert(
      fc.property(hex, (colour) => {
        assert.equal(loadConfig({ ...valid(), KASSA_MERCHANT_COLOR: colour.toUpperCase() }).merchant.accent, colour);
        for (const theme of ['light', 'dark'] as const) {
          const colours = accentColours(colour, theme);
          assert.ok(contrast(colours.primary, colours.onPrimary) >= 4.5, `${colour} ${theme}: button text`);
          for (const ground of FOCUS_GROUNDS[theme])
            assert.ok(contrast(colours.focus, ground) >= 3, `${colour} ${theme}: focus ring on ${ground}`);
        }
      }),
    );
    assert.equal(contrast('#000000', '#ffffff'), 21);
  });
});

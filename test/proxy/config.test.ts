import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../../proxy/config-readers.ts';
import { loadConfig, secretsOf } from '../../proxy/config.ts';
import { parseOpenAmount } from '../../proxy/payments/payment-settings.ts';
import { failsOn, valid } from '../support/config-env.ts';

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

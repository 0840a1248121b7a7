import assert from 'node:assert/strict';
import { ConfigError } from '../../proxy/config-readers.ts';
import { loadConfig } from '../../proxy/config.ts';

/** A complete environment for the proxy, against live-looking services: each test changes what it checks. */
export const valid = (): Record<string, string> => ({
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

/** Asserts the proxy refuses to start on `env`, naming `setting` (and saying `message`). */
export const failsOn = (env: Record<string, string | undefined>, setting: string, message?: RegExp) => {
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

import type { Sandbox } from '../../sandbox/server.ts';
import { http } from './http.ts';

/** Small conveniences over the emulator's own HTTP API, so tests read as scenarios. */
export function sandboxClient(sandbox: Sandbox) {
  const control = (path: string, body?: unknown, method?: string) =>
    http(`${sandbox.control}${path}`, { method: method ?? (body === undefined ? 'GET' : 'POST'), body });

  return {
    control,
    async token(clientSecret = sandbox.clientSecret): Promise<string> {
      const response = await http(`${sandbox.pay}/v1/auth/token`, {
        body: { grant_type: 'client_credentials', client_secret: clientSecret },
      });
      if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${response.text}`);
      return response.body.access_token as string;
    },
    initiate(token: string, body: Record<string, unknown>) {
      return http(`${sandbox.pay}/v1/payments/initiate`, { body, headers: { Authorization: `Bearer ${token}` } });
    },
    read(token: string, transactionId: string) {
      return http(`${sandbox.pay}/v1/payments/${transactionId}`, { headers: { Authorization: `Bearer ${token}` } });
    },
    orders(path: string, init: { method?: string; body?: unknown; apiKey?: string | null } = {}) {
      const headers: Record<string, string> =
        init.apiKey === null ? {} : { 'x-api-key': init.apiKey ?? sandbox.ordersApiKey };
      return http(`${sandbox.orders}${path}`, { method: init.method, body: init.body, headers });
    },
  };
}

export const validPayment = (overrides: Record<string, unknown> = {}) => ({
  redirectUrl: 'http://127.0.0.1:9/return?order=42',
  amount: 100.5,
  currencyCode: 'EUR',
  reference: 'ORDER-42',
  metadata: JSON.stringify({ cart: 42 }),
  ...overrides,
});

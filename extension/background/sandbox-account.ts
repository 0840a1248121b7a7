import { SANDBOX_TEST_KEY } from '../../lib/sandbox-account.ts';
import { publicConfigSchema } from '../../schemas/proxy-api.ts';
import { requireProxy, SettingsError } from './settings.ts';

const TIMEOUT_MS = 10_000;

/**
 * Which payment environment the configured proxy runs against, as it tells every page
 * (`GET /api/config`): `sandbox` for the emulator or a sandbox account, `live` for real money; null
 * when there is no proxy yet or it does not answer as documented.
 */
export async function proxyEnvironment(): Promise<'sandbox' | 'live' | null> {
  try {
    const { proxyUrl } = await requireProxy();
    const response = await fetch(`${proxyUrl}/api/config`, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const parsed = publicConfigSchema.safeParse(await response.json());
    return response.ok && parsed.success ? parsed.data.environment : null;
  } catch {
    return null;
  }
}

/**
 * The sandbox's test account's key (lib/sandbox-account.ts), for the vault: only while the proxy says
 * it runs on the sandbox, asked afresh now. A public key is worth nothing but test money, and must
 * never be the wallet of a shop that takes real money.
 */
export async function sandboxAccountKey(): Promise<string> {
  if ((await proxyEnvironment()) !== 'sandbox')
    throw new SettingsError('The sandbox test account is only for a proxy that runs on the sandbox');
  return SANDBOX_TEST_KEY;
}

import { eventsSecret } from '../../demo/demo.ts';
import { startShop } from '../../demo/shop-server.ts';
import type { Listening } from '../../server-kit/listen.ts';
import { startStack, type Stack, type StackOptions } from './stack.ts';

/**
 * The demo shop (demo/shop-server.ts) in front of a real proxy and emulator, configured the way a
 * merchant configures them: the shop's origin allowed, its pages as return URLs, its server as the
 * receiver of the proxy's signed events.
 */
export async function startShopStack(
  options: {
    settlementMs?: number;
    /** The emulator's issuer: orders are minted this long after they are submitted (off by default). */
    mintMs?: number;
    env?: Record<string, string>;
    proxy?: StackOptions['proxy'];
  } = {},
) {
  let stack: Stack | undefined;
  const secret = eventsSecret();
  const shop: Listening = await startShop({
    port: 0,
    proxy: () => ({ origin: stack!.proxy.origin, merchantKey: stack!.config.merchantKey }),
    eventsSecret: secret,
  });
  try {
    stack = await startStack({
      sandbox: {
        settlementDelayMs: options.settlementMs ?? 1_000,
        ...(options.mintMs === undefined ? {} : { mintDelayMs: options.mintMs }),
      },
      proxy: options.proxy,
      env: {
        KASSA_ALLOWED_ORIGINS: shop.origin,
        KASSA_RETURN_URLS: `${shop.origin}/,${shop.origin}/donate,${shop.origin}/buy`,
        KASSA_OPEN_AMOUNT: '1..500 EUR',
        KASSA_EVENTS_URL: `${shop.origin}/kassa/events`,
        KASSA_EVENTS_SECRET: secret,
        ...options.env,
      },
    });
  } catch (error) {
    await shop.close();
    throw error;
  }
  const started = stack;
  return {
    stack: started,
    shop,
    /** The payments the proxy holds, as its operator sees them. */
    async payments(): Promise<
      Array<{ transactionId: string; checkoutId: string | null; amount: string; status: string }>
    > {
      return (await started.operator('/api/payments?limit=200')).body.payments;
    },
    async stop(): Promise<void> {
      await shop.close();
      await started.stop();
    },
  };
}

export type ShopStack = Awaited<ReturnType<typeof startShopStack>>;

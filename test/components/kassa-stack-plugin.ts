import type { TestRunnerPlugin } from '@web/test-runner';
import { anvilAccount } from '../support/chains.ts';
import { ONRAMP_ENV, onrampCustomer } from '../support/onramp.ts';
import { walletCommands } from '../support/wallet/wallet-commands.ts';
import { http } from '../support/http.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import {
  FRAME_PATH,
  type BankPayload,
  type CheckoutPayload,
  type ControlPayload,
  type OnrampPurchasePayload,
  type OnrampWalletPayload,
  type StackPayload,
} from './stack-commands.ts';

/**
 * Gives component tests the real thing: an emulator and a proxy per named stack, configured to
 * answer the test page's origin, reached through server commands (`executeServerCommand`). The
 * merchant key stays here, on the server side, as it would in a shop.
 */
export function kassaStackPlugin(): TestRunnerPlugin {
  const stacks = new Map<string, Promise<Stack>>();
  let pageOrigin = '';

  const stackFor = ({
    stack = 'main',
    env = {},
    onramp = false,
    paymentWindowSeconds,
  }: StackPayload): Promise<Stack> => {
    let started = stacks.get(stack);
    if (!started) {
      started = startStack({
        // Long enough to see "waiting for the bank", short enough for the tests.
        sandbox: { settlementDelayMs: 400, ...(onramp ? { mintDelayMs: 0 } : {}) },
        env: {
          KASSA_ALLOWED_ORIGINS: `${SHOP_ORIGIN},${pageOrigin}`,
          KASSA_RETURN_URLS: `${pageOrigin}${FRAME_PATH}`,
          KASSA_OPEN_AMOUNT: '1..500 EUR',
          ...(onramp ? ONRAMP_ENV : {}),
          ...env,
        },
        ...(paymentWindowSeconds === undefined
          ? {}
          : { proxy: { onrampPaymentWindowSeconds: paymentWindowSeconds, onrampSweepMs: 200 } }),
      });
      stacks.set(stack, started);
    }
    return started;
  };

  // The wallet panel's test wallets (`bridge:*`): they sign here, with keys the page never sees.
  const wallets = walletCommands(stackFor);

  return {
    name: 'kassa-stack',
    serverStart({ config }) {
      pageOrigin = `http://${config.hostname}:${config.port}`;
    },
    async serverStop() {
      wallets.close();
      await Promise.all([...stacks.values()].map(async (stack) => (await stack).stop()));
    },
    async executeCommand({ command, payload }) {
      if (command.startsWith('bridge:')) return wallets.execute(command, payload);
      switch (command) {
        case 'kassa:stack': {
          const stack = await stackFor(payload as StackPayload);
          return { proxy: stack.proxy.origin, sandbox: stack.sandbox.origin };
        }
        case 'kassa:checkout': {
          const { body, ...which } = payload as CheckoutPayload;
          return (await stackFor(which)).checkout(body);
        }
        case 'kassa:control': {
          const { path, body, method, ...which } = payload as ControlPayload;
          const { status, body: answer } = await (await stackFor(which)).control(path, body, method);
          return { status, body: answer };
        }
        case 'kassa:payments': {
          const { status, body } = await (await stackFor(payload as StackPayload)).operator('/api/payments?limit=200');
          if (status !== 200) throw new Error(`operator payments: ${status}`);
          return body.payments;
        }
        case 'kassa:onramp-purchase': {
          // A purchase made straight through the proxy, as another page of the same wallet would.
          const { account, body, ...which } = payload as OnrampPurchasePayload;
          const answer = await onrampCustomer(await stackFor(which), anvilAccount(account)).purchase(body);
          return { status: answer.status, body: answer.body };
        }
        case 'kassa:onramp-purchases': {
          // A wallet's purchases, as the operator sees them (newest first).
          const { wallet, ...which } = payload as OnrampWalletPayload;
          const { status, body } = await (
            await stackFor(which)
          ).operator(`/api/onramp/purchases?wallet=${wallet}&limit=100`);
          if (status !== 200) throw new Error(`operator purchases: ${status}`);
          return body.purchases;
        }
        case 'kassa:bank': {
          // The customer's choice on the emulator's bank page, as the page's form posts it.
          const { flowUrl, action, providerId = 'bank_xyz' } = payload as BankPayload;
          const answer = await http(flowUrl, {
            raw: new URLSearchParams({ action, providerId }).toString(),
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          });
          return { status: answer.status, location: answer.headers.get('location') };
        }
        default:
          return undefined;
      }
    },
  };
}

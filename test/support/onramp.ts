import { id, parseUnits, zeroPadValue, type BaseWallet } from 'ethers';
import type { PurchaseView } from '../../schemas/onramp.ts';
import type { Stack } from './stack.ts';
import { eventually } from './stack.ts';
import { chainProviders, token } from './chains.ts';
import { http } from './http.ts';

/** The on-ramp's settings as a test stack sets them: EUR → eEUR, GBP → eGBR, 1 to 500, 1,000 a day. */
export const ONRAMP_ENV = {
  KASSA_ONRAMP_COINS: 'EUR:eEUR,GBP:eGBR',
  KASSA_ONRAMP_LIMITS: '1..500',
  KASSA_ONRAMP_WALLET_LIMIT: '1000',
};

/** Where a customer reaches a proxy: a stack, or one instance of a fleet. */
export type OnrampSite = Pick<Stack, 'browser' | 'pay' | 'control' | 'sandbox'>;

/** A customer of the on-ramp, as their page and wallet would act through the proxy. */
export function onrampCustomer(stack: OnrampSite, wallet: Pick<BaseWallet, 'address' | 'signMessage'>) {
  const customer = {
    quote(body: Record<string, unknown> = {}) {
      return stack.browser('/api/onramp/quotes', {
        body: { wallet: wallet.address, chainId: 31338, symbol: 'eEUR', amount: '25', ...body },
      });
    },
    async purchase(body: Record<string, unknown> = {}, signer: Pick<BaseWallet, 'signMessage'> = wallet) {
      const quote = await customer.quote(body);
      if (quote.status !== 201) throw new Error(`quote: ${quote.status} ${quote.text}`);
      const signature = await signer.signMessage(quote.body.message as string);
      return stack.browser('/api/onramp/purchases', { body: { quoteId: quote.body.quoteId, signature } });
    },
    /** Buys, pays at the sandbox bank (COMPLETED) and returns the purchase's token and payment. */
    async buyAndPay(body: Record<string, unknown> = {}) {
      const created = await customer.purchase(body);
      if (created.status !== 201) throw new Error(`purchase: ${created.status} ${created.text}`);
      const { purchase, purchaseToken } = created.body as { purchase: { checkoutId: string }; purchaseToken: string };
      const paid = await stack.pay(purchase.checkoutId);
      if (paid.status !== 201) throw new Error(`pay: ${paid.status} ${paid.text}`);
      await stack.control(`/payments/${paid.body.transactionId as string}/outcome`, { status: 'COMPLETED' });
      return {
        purchaseToken,
        purchaseId: created.body.purchase.purchaseId as string,
        transactionId: paid.body.transactionId as string,
      };
    },
    status(purchaseToken: string) {
      return stack.browser(`/api/onramp/status/${purchaseToken}`);
    },
    /** Waits until the purchase is in `state`; its view. */
    until(purchaseToken: string, state: PurchaseView['state']): Promise<PurchaseView> {
      return eventually(async () => {
        const view = (await customer.status(purchaseToken)).body as PurchaseView;
        return view.state === state ? view : undefined;
      }, `purchase ${state}`);
    },
  };
  return customer;
}

/** The wallet's balance of a sandbox stablecoin on a chain, read from the chain. */
export async function balanceOf(
  stack: Pick<Stack, 'sandbox'>,
  chainId: number,
  symbol: 'eEUR' | 'eGBR',
  address: string,
): Promise<bigint> {
  const providers = chainProviders(stack.sandbox.chains);
  try {
    const chain = stack.sandbox.chains.find((candidate) => candidate.chainId === chainId)!;
    return (await token(chain, symbol, providers.get(chainId)).balanceOf!(address)) as bigint;
  } finally {
    providers.destroy();
  }
}

export const units = (tokens: string) => parseUnits(tokens, 18);

/** The mints (Transfers from the zero address) of a coin to an address on a chain, read from the chain. */
export async function mintsTo(
  stack: Pick<Stack, 'sandbox'>,
  chainId: number,
  symbol: 'eEUR' | 'eGBR',
  address: string,
) {
  const providers = chainProviders(stack.sandbox.chains);
  try {
    const chain = stack.sandbox.chains.find((candidate) => candidate.chainId === chainId)!;
    return await providers.get(chainId).getLogs({
      address: chain.tokens[symbol].address,
      topics: [id('Transfer(address,address,uint256)'), zeroPadValue('0x00', 32), zeroPadValue(address, 32)],
      fromBlock: 0,
    });
  } finally {
    providers.destroy();
  }
}

/** The orders the sandbox's order service holds for a purchase, oldest first. */
export async function ordersOf(stack: Pick<Stack, 'sandbox'>, purchaseId: string) {
  const response = await http(`${stack.sandbox.orders}orders`, {
    headers: { 'x-api-key': stack.sandbox.ordersApiKey },
  });
  return (response.body as Array<{ orderId: string; customerOrder: string; orderStatus: string }>).filter((order) =>
    order.customerOrder.startsWith(`kassa-onramp-${purchaseId}-`),
  );
}

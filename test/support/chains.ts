import { Contract, HDNodeWallet, Wallet, type ContractRunner, type JsonRpcProvider } from 'ethers';
import { chainProvider } from '../../sandbox/chains/provider.ts';
import type { SandboxChain } from '../../sandbox/chains/local-chains.ts';
import type { Stablecoin } from '../../schemas/orders.ts';
import { REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';
import { PATIENCE_MS } from './patience.ts';

/** anvil's well-known development mnemonic: its ten default accounts, funded by the sandbox. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const accountsRoot = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0");

/** Default account `index` (0 to 9) as a plain Wallet, optionally connected. */
export function anvilAccount(index: number, provider?: JsonRpcProvider): Wallet {
  return new Wallet(accountsRoot.deriveChild(index).privateKey, provider);
}

/** Providers of a sandbox's chains, by chain id; `destroy()` them all in `after`. */
export function chainProviders(chains: readonly SandboxChain[]) {
  const providers = new Map(chains.map((chain) => [chain.chainId, chainProvider(chain.rpcUrl, chain.chainId)]));
  return {
    get(chainId: number): JsonRpcProvider {
      const provider = providers.get(chainId);
      if (!provider) throw new Error(`no chain ${chainId}`);
      return provider;
    },
    destroy: () => providers.forEach((provider) => provider.destroy()),
  };
}

export function token(chain: SandboxChain, symbol: Stablecoin, runner: ContractRunner): Contract {
  return new Contract(chain.tokens[symbol].address, REFORGE_TOKEN_ABI, runner);
}

/** Polls `read` until `done` holds for its value; the value, or a rejection naming `what` when it never does. */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: never came (last value ${String(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import { ContractFactory, getCreateAddress, id, parseUnits, toQuantity, Wallet, type JsonRpcProvider } from 'ethers';
import { STABLECOINS, type Stablecoin } from '../../schemas/orders.ts';
import type { TokenInfo } from '../../schemas/reforge.ts';
import { STABLECOIN_ARTEFACT } from '../contracts/stablecoin-artefact.ts';
import { waitForReceipt } from './provider.ts';

export const TOKEN_DECIMALS = 18;

export const TOKEN_NAMES: Readonly<Record<Stablecoin, string>> = {
  eUSD: 'Kassa Sandbox US Dollar',
  eEUR: 'Kassa Sandbox Euro',
  eGBR: 'Kassa Sandbox Pound Sterling',
  eSGD: 'Kassa Sandbox Singapore Dollar',
};

/** What each default account holds of each stablecoin at start. */
export const OPENING_BALANCE = '1000000';

/**
 * The relayer's key: the only minter of every token. Fixed, so that token addresses (the relayer's
 * address and nonce) are the same on every run; it holds nothing but the emulator's gas money.
 */
export const RELAYER_PRIVATE_KEY = id('kassa sandbox relayer');

/**
 * Each chain deploys from its own relayer nonce (`chainIndex` × 16), so the four token addresses differ
 * from chain to chain: a token address alone tells which chain it is on.
 */
const NONCE_STRIDE = 16;
const RELAYER_GAS_MONEY = parseUnits('1000000', 18);
const DEPLOY_GAS_LIMIT = 3_000_000n;
const DEPLOY_TIMEOUT_MS = 10_000;

/** Deploys the four stablecoins on a fresh anvil chain, funding `holders` in their constructors. */
export async function deployStablecoins(
  provider: JsonRpcProvider,
  chainId: number,
  chainIndex: number,
  holders: string[],
): Promise<Record<Stablecoin, TokenInfo>> {
  const relayer = new Wallet(RELAYER_PRIVATE_KEY);
  const firstNonce = chainIndex * NONCE_STRIDE;
  const [block] = await Promise.all([
    provider.getBlock('latest'),
    provider.send('anvil_setBalance', [relayer.address, toQuantity(RELAYER_GAS_MONEY)]),
    provider.send('anvil_setNonce', [relayer.address, toQuantity(firstNonce)]),
  ]);
  const priorityFee = parseUnits('1', 'gwei');
  const maxFeePerGas = (block?.baseFeePerGas ?? 0n) * 2n + priorityFee;
  const factory = new ContractFactory(STABLECOIN_ARTEFACT.abi as never, STABLECOIN_ARTEFACT.bytecode);
  const holding = parseUnits(OPENING_BALANCE, TOKEN_DECIMALS);

  // Signed locally with explicit nonces and fees, and broadcast in nonce order: four round trips
  // instead of the dozen that ethers' populate-and-wait would take.
  const hashes: string[] = [];
  for (const [offset, symbol] of STABLECOINS.entries()) {
    const deploy = await factory.getDeployTransaction(TOKEN_NAMES[symbol], symbol, relayer.address, holders, holding);
    const signed = await relayer.signTransaction({
      ...deploy,
      type: 2,
      chainId,
      nonce: firstNonce + offset,
      gasLimit: DEPLOY_GAS_LIMIT,
      maxFeePerGas,
      maxPriorityFeePerGas: priorityFee,
    });
    hashes.push((await provider.send('eth_sendRawTransaction', [signed])) as string);
  }
  const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(provider, hash, DEPLOY_TIMEOUT_MS)));

  const tokens = {} as Record<Stablecoin, TokenInfo>;
  for (const [offset, symbol] of STABLECOINS.entries()) {
    const receipt = receipts[offset]!;
    const address = getCreateAddress({ from: relayer.address, nonce: firstNonce + offset });
    if (receipt.status !== 1 || receipt.contractAddress !== address)
      throw new Error(`deploying ${symbol} on chain ${chainId} failed (tx ${receipt.hash})`);
    tokens[symbol] = { address, decimals: TOKEN_DECIMALS, symbol, name: TOKEN_NAMES[symbol] };
  }
  return tokens;
}

import { toQuantity, type Transaction } from 'ethers';
import { BridgeError, fromWalletError, isUnknownChain } from './errors.ts';
import { toHexChainId, type AddableChain, type WalletSession } from './wallets.ts';

/**
 * Puts the wallet on `chain`: `wallet_switchEthereumChain` (EIP-3326); when the wallet does not
 * know the chain (4902), `wallet_addEthereumChain` (EIP-3085) with the listing's name, native
 * currency and RPC URL, then a switch if adding did not switch. Then asks `eth_chainId` again: a
 * wallet that says yes and stays elsewhere gets `wrong-chain`, and nothing is sent.
 */
export async function ensureChain(session: WalletSession, chain: AddableChain, onSwitching: () => void): Promise<void> {
  if ((await readChain(session)) === chain.chainId) return;
  onSwitching();
  const chainId = toHexChainId(chain.chainId);
  try {
    await session.request('wallet_switchEthereumChain', [{ chainId }]);
  } catch (error) {
    if (!isUnknownChain(error)) throw fromWalletError(error, 'switch');
    try {
      await session.request('wallet_addEthereumChain', [
        { chainId, chainName: chain.name, nativeCurrency: chain.nativeCurrency, rpcUrls: [chain.rpcUrl] },
      ]);
      if ((await readChain(session)) !== chain.chainId)
        await session.request('wallet_switchEthereumChain', [{ chainId }]);
    } catch (added) {
      throw fromWalletError(added, 'switch');
    }
  }
  const now = await readChain(session);
  if (now !== chain.chainId)
    throw new BridgeError('wrong-chain', 'switch', `The wallet is on chain ${now ?? 'unknown'}, not ${chain.chainId}`, {
      chainId: chain.chainId,
    });
}

async function readChain(session: WalletSession): Promise<number | undefined> {
  try {
    return await session.readChainId();
  } catch (error) {
    throw fromWalletError(error, 'switch');
  }
}

/**
 * Has the wallet sign and broadcast the prepared transaction (`eth_sendTransaction`), from the
 * connected account, with the prepared call, value and gas limit, on the prepared chain; the wallet
 * picks the nonce (the prepared one is a placeholder) and the fees. Resolves to the hash.
 */
export async function sendThroughWallet(session: WalletSession, tx: Transaction): Promise<string> {
  let hash: unknown;
  try {
    hash = await session.request('eth_sendTransaction', [
      {
        from: session.account,
        to: tx.to,
        data: tx.data,
        value: toQuantity(tx.value),
        gas: toQuantity(tx.gasLimit),
        chainId: toQuantity(tx.chainId),
      },
    ]);
  } catch (error) {
    throw fromWalletError(error, 'send');
  }
  if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash))
    throw new BridgeError(
      'wallet-error',
      'send',
      `The wallet answered ${String(hash).slice(0, 80)} instead of a transaction hash`,
    );
  return hash;
}

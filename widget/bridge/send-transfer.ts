import { toQuantity, type Transaction } from 'ethers';
import type { TransferPreview } from '../../lib/transfer-preview.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import type { ChainRpc } from './chain-rpc.ts';
import { BridgeError, fromWalletError, isUnknownChain } from './errors.ts';
import type { TransferRecord } from './transfer-store.ts';
import { toHexChainId, type AddableChain, type WalletSession } from '../shared/wallet/wallets.ts';

/** A transaction the proxy prepared and the panel checked, while the user reviews it. */
export interface Prepared {
  tx: Transaction;
  preview: TransferPreview;
  source: ChainEntry;
  destination: ChainEntry;
}

/** The steps of sending, as the panel shows them. */
export interface SendSteps {
  /** The wallet is asked to switch to the source chain. */
  switching(): void;
  /** The wallet is asked to sign. */
  signing(): void;
  /** Whether the session is still the panel's (the wallet may have gone away meanwhile). */
  current(): boolean;
}

/**
 * Sends a prepared transfer through the user's wallet, once, and returns what the tab keeps of it.
 * Before anything reaches the wallet, the source chain is asked whether the account has the tokens
 * and the most the fee can be; then the wallet is put on the source chain, and, still with the same
 * account, signs and broadcasts. What the destination chain looks like before is kept too, to
 * recognise the tokens' arrival.
 */
export async function sendTransfer(
  session: WalletSession,
  { tx, preview, source, destination }: Prepared,
  rpc: (chain: ChainEntry) => ChainRpc,
  steps: SendSteps,
): Promise<TransferRecord> {
  const account = session.account;
  const sourceRpc = rpc(source);
  const destinationRpc = rpc(destination);
  // Before anything reaches the wallet: the tokens and the most the fee can be are there.
  const [tokens, native] = await Promise.all([
    sourceRpc.tokenBalance(preview.contract, account, 'send'),
    sourceRpc.nativeBalance(account, 'send'),
  ]);
  if (tokens < preview.burn.units)
    throw new BridgeError(
      'insufficient-balance',
      'send',
      `The balance is ${tokens} base units, the transfer needs ${preview.burn.units}`,
    );
  if (native < preview.maxFeeWei)
    throw new BridgeError(
      'insufficient-gas',
      'send',
      `The account has ${native} wei on chain ${source.chainId}, the fee may be up to ${preview.maxFeeWei}`,
    );
  await ensureChain(session, source, () => steps.switching());
  if (session.account.toLowerCase() !== account.toLowerCase() || !steps.current())
    throw new BridgeError('wallet-unauthorized', 'switch', 'The wallet switched accounts before signing');
  steps.signing();
  const [nonceBefore, sourceBlock, destinationBlock, destinationBalance] = await Promise.all([
    sourceRpc.nonce(account, 'send'),
    sourceRpc.blockNumber('send'),
    destinationRpc.blockNumber('send'),
    destinationRpc.tokenBalance(preview.mint.token.address, account, 'send'),
  ]);
  const hash = await sendThroughWallet(session, tx);
  return {
    v: 1,
    hash,
    from: account,
    sourceChainId: source.chainId,
    destinationChainId: destination.chainId,
    symbol: preview.burn.token.symbol,
    amount: preview.burn.amount.replace(/\.0$/, ''),
    units: preview.burn.units.toString(),
    sourceToken: preview.contract,
    destinationToken: preview.mint.token.address,
    to: tx.to!,
    data: tx.data,
    nonceBefore: nonceBefore.toString(),
    sourceBlock: sourceBlock.toString(),
    destinationBlock: destinationBlock.toString(),
    destinationBalance: destinationBalance.toString(),
    sentAt: Date.now(),
  };
}

/**
 * Puts the wallet on `chain`: `wallet_switchEthereumChain` (EIP-3326); when the wallet does not
 * know the chain (4902), `wallet_addEthereumChain` (EIP-3085) with the listing's name, native
 * currency and RPC URL, then a switch if adding did not switch. Then asks `eth_chainId` again: a
 * wallet that says yes and stays elsewhere gets `wrong-chain`, and nothing is sent.
 */
async function ensureChain(session: WalletSession, chain: AddableChain, onSwitching: () => void): Promise<void> {
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
 * connected account, with the prepared call, value and gas limit, on the prepared chain, and the fees
 * the preview showed (transfer-fees.ts), so that its "at most" holds; the wallet picks the nonce (the
 * prepared one is a placeholder). Resolves to the hash.
 */
async function sendThroughWallet(session: WalletSession, tx: Transaction): Promise<string> {
  let hash: unknown;
  try {
    hash = await session.request('eth_sendTransaction', [
      {
        from: session.account,
        to: tx.to,
        data: tx.data,
        value: toQuantity(tx.value),
        gas: toQuantity(tx.gasLimit),
        maxFeePerGas: toQuantity(tx.maxFeePerGas ?? 0n),
        maxPriorityFeePerGas: toQuantity(tx.maxPriorityFeePerGas ?? 0n),
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

import { toQuantity, Transaction } from 'ethers';
import { FEE_RULES, FeeReadError, readChainFees, suggestedFees } from '../../lib/fee-policy.ts';
import { PreviewError } from '../../lib/transfer-preview.ts';
import type { ChainRpc } from './chain-rpc.ts';
import { BridgeError } from './errors.ts';

/**
 * The prepared transaction with the panel's own fees, read from its chain by the rules Kassa's wallet
 * applies too (lib/fee-policy.ts), never the proxy's: the preview's "Network fee, at most" is then the
 * gas limit times a max fee the panel chose and sends to the wallet with the transaction, a bound and
 * not a guess (a wallet that honours a page's fees signs exactly that; Kassa's accepts it within its
 * ceiling). The proxy's gas limit is kept only while it is within reach of the chain's own estimate:
 * an inflated one would make "at most" a meaningless figure.
 */
export async function withOwnFees(serialized: string, rpc: ChainRpc, account: string): Promise<string> {
  const tx = Transaction.from(serialized);
  const call = { from: account, to: tx.to, data: tx.data, value: toQuantity(tx.value) };
  const [chainFees, estimate] = await Promise.all([
    readChainFees((method, params) => rpc.request(method, params, 'preview')).catch((error: unknown) => {
      if (error instanceof FeeReadError)
        throw new BridgeError('rpc', 'preview', `${rpc.chain.name}: ${error.message}`, { chainId: rpc.chain.chainId });
      throw error;
    }),
    rpc.request<string>('eth_estimateGas', [call], 'preview'),
  ]);
  if (tx.gasLimit > BigInt(estimate) * FEE_RULES.gasOverEstimate)
    throw new PreviewError(
      `The prepared gas limit (${tx.gasLimit}) is far above what the transfer needs (${BigInt(estimate)})`,
    );
  const fees = suggestedFees(chainFees);
  tx.maxFeePerGas = fees.maxFeePerGas;
  tx.maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  return tx.unsignedSerialized;
}

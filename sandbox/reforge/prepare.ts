import { Transaction } from 'ethers';
import { isDecimal, toUnits } from '../../lib/money.ts';
import type { PrepareReforge } from '../../schemas/reforge.ts';
import type { LocalChain, LocalChains } from '../chains/local-chains.ts';
import { errorMessage } from '../chains/revert.ts';
import { TOKEN_INTERFACE } from '../chains/token-interface.ts';
import { ReforgeError } from './reforge-error.ts';

const MAX_UINT256 = 2n ** 256n - 1n;
/** Above the gas a `reforge` burn takes in its worst case (the token's first burn): used when no estimate can be had. */
const FALLBACK_GAS_LIMIT = 120_000n;
const GAS_MARGIN_PERCENT = 125n;

/**
 * Builds the unsigned EIP-1559 transaction that burns `sourceAmount` on the source chain for the
 * destination (docs/upstream.md, "Prepared transactions"): the `0x02…` serialization with nonce 0,
 * which the sender's wallet replaces with its own.
 */
export async function prepareReforge(chains: LocalChains, request: PrepareReforge): Promise<string> {
  const found = chains.byToken(request.sourceToken);
  if (!found)
    throw new ReforgeError(
      `Unknown sourceToken: ${request.sourceToken} is not a token on any supported chain (${chains.ids()})`,
    );
  const { chain: source, symbol } = found;
  if (request.sourceRpcUrl !== undefined) {
    const named = chains.byRpcUrl(request.sourceRpcUrl);
    if (!named)
      throw new ReforgeError(
        "sourceRpcUrl is not the RPC URL of a supported chain (the listings give each chain's rpcUrl)",
      );
    if (named !== source)
      throw new ReforgeError(
        `sourceToken ${request.sourceToken} is on chain ${source.chainId}, not on chain ${named.chainId} of sourceRpcUrl`,
      );
  }
  const token = source.tokens[symbol];
  if (!isDecimal(request.sourceAmount, token.decimals)) {
    throw new ReforgeError(`sourceAmount has more decimal places than ${symbol}'s ${token.decimals}`);
  }
  const amount = toUnits(request.sourceAmount, token.decimals);
  if (amount > MAX_UINT256) throw new ReforgeError('sourceAmount is too large');

  const destination = chains.byId(request.destinationChainId);
  if (!destination)
    throw new ReforgeError(
      `Unsupported destinationChainId: ${request.destinationChainId} (supported: ${chains.ids()})`,
    );
  if (destination === source)
    throw new ReforgeError(
      `destinationChainId ${destination.chainId} is the source chain: reforge moves tokens to another chain`,
    );
  if (destination.network !== source.network) {
    throw new ReforgeError(
      `destinationChainId ${destination.chainId} is a ${destination.network} network but the source chain is a ${source.network} network`,
    );
  }
  const arriving = chains.byToken(request.destinationToken);
  if (arriving?.chain !== destination)
    throw new ReforgeError(
      `destinationToken ${request.destinationToken} is not a token on chain ${destination.chainId}`,
    );
  if (arriving.symbol !== symbol) {
    throw new ReforgeError(
      `destinationToken is ${arriving.symbol} but sourceToken is ${symbol}: reforge burns and mints the same stablecoin`,
    );
  }

  const args = [request.destinationChainId, request.destinationToken] as const;
  const data = TOKEN_INTERFACE.encodeFunctionData('reforge', [amount, ...args]);
  try {
    const [gasLimit, fees] = await Promise.all([
      estimateBurnGas(source, token.address, args),
      source.provider.getFeeData(),
    ]);
    return Transaction.from({
      type: 2,
      chainId: source.chainId,
      nonce: 0,
      to: token.address,
      data,
      value: 0n,
      gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    }).unsignedSerialized;
  } catch (error) {
    throw new ReforgeError(`Chain ${source.chainId} did not answer: ${errorMessage(error)}`);
  }
}

/**
 * The sender is not known yet, so the burn is estimated for a funded account burning one base unit:
 * the gas of `reforge` does not depend on who burns how much, bar a few calldata bytes the margin
 * covers. When that account holds none of the token any more, a measured constant stands in.
 */
async function estimateBurnGas(chain: LocalChain, token: string, args: readonly [number, string]): Promise<bigint> {
  const probe = TOKEN_INTERFACE.encodeFunctionData('reforge', [1n, ...args]);
  try {
    const gas = await chain.provider.estimateGas({ from: chain.holders[0], to: token, data: probe });
    return (gas * GAS_MARGIN_PERCENT) / 100n;
  } catch {
    return FALLBACK_GAS_LIMIT;
  }
}

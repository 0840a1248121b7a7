/**
 * What a prepared cross-chain transfer does, in words a person can check before signing: what is
 * burned, where and to whom it is minted, which contract and method, on which chain, at what fee.
 * The wallet panel and the extension's approval window both show this, so they decode the same way.
 *
 * It fails closed: a transaction that is not a `reforge` burn on a token the chain listing knows,
 * sending value, or going to another chain than the listing says, is refused with a reason, never
 * shown as something it is not.
 */
import { formatUnits, getAddress, Interface, Transaction } from 'ethers';
import { REFORGE_TOKEN_ABI } from './reforge-abi.ts';

/** A token as the chain listing names it (schemas/reforge.ts's TokenInfo has this shape). */
export interface TokenInfo {
  address: string;
  decimals: number;
  symbol: string;
  name: string;
}

/** What the preview needs of a chain listing entry (schemas/reforge.ts's ChainEntry has more). */
export interface ChainEntry {
  name: string;
  chainId: number;
  nativeCurrency: { symbol: string; decimals: number };
  tokens: Record<string, TokenInfo>;
}

export interface TransferPreview {
  /** The chain the transaction runs on: the wallet must be on it to sign. */
  chain: { chainId: number; name: string; nativeSymbol: string };
  /** The token contract called, and the method in its signature form. */
  contract: string;
  method: string;
  burn: { amount: string; units: bigint; token: TokenInfo };
  mint: { chainId: number; chainName: string; token: TokenInfo; amount: string; to: string | null };
  gasLimit: bigint;
  /** The most the fee can be (gas limit times max fee per gas), in the native token. */
  maxFee: string;
  maxFeeWei: bigint;
}

export class PreviewError extends Error {}

const tokenInterface = new Interface(REFORGE_TOKEN_ABI);
const reforge = tokenInterface.getFunction('reforge')!;

function tokenAt(chain: ChainEntry, address: string): TokenInfo | undefined {
  const wanted = getAddress(address);
  return Object.values(chain.tokens).find((token) => getAddress(token.address) === wanted);
}

/** The arguments of a `reforge` call; ethers decodes lazily, so reading them is where bad data shows. */
function reforgeArguments(data: string): [bigint, bigint, string] {
  let call;
  try {
    call = tokenInterface.parseTransaction({ data });
  } catch {
    call = null;
  }
  if (!call || call.selector !== reforge.selector)
    throw new PreviewError(`The transaction calls ${call?.name ?? 'an unknown method'}, not reforge`);
  let args: [bigint, bigint, string];
  try {
    const [units, destinationChainId, destinationToken] = call.args;
    args = [BigInt(units as bigint), BigInt(destinationChainId as bigint), getAddress(destinationToken as string)];
  } catch {
    throw new PreviewError('The arguments of the reforge call cannot be read');
  }
  // Exactly the call shown and nothing else: bytes after the arguments would be signed without being
  // shown (ethers' decoder ignores them; it refuses an address with dirty padding itself).
  if (tokenInterface.encodeFunctionData(reforge, args) !== data.toLowerCase())
    throw new PreviewError('The reforge call carries bytes beyond its arguments');
  return args;
}

/**
 * Decodes an unsigned prepared transaction (`0x02…`) against the chain listing. `from` is the account
 * that will sign: the tokens are minted to that same address on the destination chain.
 */
export function describeTransfer(serialized: string, chains: readonly ChainEntry[], from?: string): TransferPreview {
  let tx: Transaction;
  try {
    tx = Transaction.from(serialized);
  } catch {
    throw new PreviewError('The prepared transaction cannot be read');
  }
  if (tx.signature) throw new PreviewError('The prepared transaction is already signed');
  if (tx.type !== 2 || tx.chainId === 0n) throw new PreviewError('The prepared transaction names no chain');
  const source = chains.find((chain) => BigInt(chain.chainId) === tx.chainId);
  if (!source)
    throw new PreviewError(`The transaction is for chain ${tx.chainId}, which is not among the supported chains`);
  if (!tx.to) throw new PreviewError('The transaction creates a contract; it is not a transfer');
  const token = tokenAt(source, tx.to);
  if (!token) throw new PreviewError(`The transaction calls ${tx.to}, which is not a token on ${source.name}`);
  if (tx.value !== 0n) throw new PreviewError('The transaction also sends native currency; a transfer never does');
  const [units, destinationChainId, destinationToken] = reforgeArguments(tx.data);
  const destination = chains.find((chain) => BigInt(chain.chainId) === destinationChainId);
  if (!destination || destination === source)
    throw new PreviewError(`The tokens would go to chain ${destinationChainId}, which is not a supported destination`);
  const arriving = tokenAt(destination, destinationToken);
  if (!arriving || arriving.symbol !== token.symbol)
    throw new PreviewError(
      `The tokens would arrive as ${destinationToken}, which is not ${token.symbol} on ${destination.name}`,
    );
  const maxFeeWei = tx.gasLimit * (tx.maxFeePerGas ?? 0n);
  const amount = formatUnits(units, token.decimals);
  return {
    chain: { chainId: source.chainId, name: source.name, nativeSymbol: source.nativeCurrency.symbol },
    contract: getAddress(tx.to),
    method: reforge.format('sighash'),
    burn: { amount, units, token },
    mint: {
      chainId: destination.chainId,
      chainName: destination.name,
      token: arriving,
      amount,
      to: from ? getAddress(from) : null,
    },
    gasLimit: tx.gasLimit,
    maxFee: formatUnits(maxFeeWei, source.nativeCurrency.decimals),
    maxFeeWei,
  };
}

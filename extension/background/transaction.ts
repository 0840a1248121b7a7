/**
 * From an `eth_sendTransaction` request to a transaction Kassa may sign. The page's EIP-1193 fields
 * become an unsigned EIP-1559 transaction on the wallet's chain, with the wallet's own fees; the
 * shared transfer preview (lib/transfer-preview.ts) must describe it, or it is refused: Kassa signs
 * Kassa transfers only (fails closed), and the approval window shows that same preview.
 */
import { getAddress, Interface, isAddress, isHexString, Transaction, type Signature } from 'ethers';
import { z } from 'zod';
import { describeTransfer, PreviewError, type TransferPreview } from '../../lib/transfer-preview.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { REFORGE_TOKEN_ABI } from '../../lib/reforge-abi.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { rpc } from './rpc.ts';

const quantity = (field: string) =>
  z.union(
    [
      z.string().regex(/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/, `${field} must be a hex quantity such as 0x1`),
      z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    ],
    {
      error: `${field} must be a hex quantity such as 0x1`,
    },
  );
const bytes = (field: string) =>
  z
    .string()
    .max(256 * 1024)
    .refine((value) => isHexString(value) && value.length % 2 === 0, `${field} must be 0x-prefixed hex bytes`);
const address = (field: string) => z.string().refine((value) => isAddress(value), `${field} must be an address`);

/** The fields of EIP-1193's transaction object that Kassa reads; others (nonce, accessList…) it sets itself. */
export const sendTransactionParamsSchema = z.tuple(
  [
    z.object(
      {
        from: address('from'),
        to: address('to').optional(),
        data: bytes('data').optional(),
        input: bytes('input').optional(),
        value: quantity('value').optional(),
        gas: quantity('gas').optional(),
        gasLimit: quantity('gasLimit').optional(),
        chainId: quantity('chainId').optional(),
        maxFeePerGas: quantity('maxFeePerGas').optional(),
        maxPriorityFeePerGas: quantity('maxPriorityFeePerGas').optional(),
      },
      { error: 'eth_sendTransaction takes one transaction object' },
    ),
  ],
  { error: 'eth_sendTransaction takes one transaction object' },
);

export interface PreparedSend {
  tx: Transaction;
  preview: TransferPreview;
}

const tokenInterface = new Interface(REFORGE_TOKEN_ABI);

/** Why a call would revert, decoded with the token's custom errors where possible. */
function revertReason(error: ProviderRpcError): string {
  const data =
    typeof error.data === 'string'
      ? error.data
      : typeof (error.data as { data?: unknown })?.data === 'string'
        ? (error.data as { data: string }).data
        : undefined;
  if (data && isHexString(data) && data.length >= 10) {
    try {
      const parsed = tokenInterface.parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.map(String).join(', ')})`;
    } catch {
      // not one of the token's errors
    }
  }
  return error.message;
}

/** What the shared transfer preview says `tx` does; a transaction it cannot describe is refused (4200). */
function previewOf(tx: Transaction, chains: ChainEntry[], account: string): TransferPreview {
  try {
    return describeTransfer(tx.unsignedSerialized, chains, account);
  } catch (error) {
    if (error instanceof PreviewError)
      throw new ProviderRpcError(RPC.unsupported, `Kassa signs only Kassa transfers: ${error.message}`);
    throw error;
  }
}

export async function prepareSend(
  rawParams: unknown,
  chain: ChainEntry,
  chains: ChainEntry[],
  account: string,
): Promise<PreparedSend> {
  const parsed = sendTransactionParamsSchema.safeParse(rawParams);
  if (!parsed.success) throw new ProviderRpcError(RPC.invalidParams, describeZodError(parsed.error));
  const [request] = parsed.data;
  if (getAddress(request.from) !== getAddress(account))
    throw new ProviderRpcError(
      RPC.unauthorized,
      `from (${request.from}) is not the account Kassa connected to this site`,
    );
  if (request.chainId !== undefined && BigInt(request.chainId) !== BigInt(chain.chainId)) {
    throw new ProviderRpcError(
      RPC.invalidParams,
      `The transaction is for chain ${BigInt(request.chainId)}, but Kassa is on ${chain.name} (${chain.chainId}): switch chains first (wallet_switchEthereumChain)`,
    );
  }
  if (
    request.data !== undefined &&
    request.input !== undefined &&
    request.data.toLowerCase() !== request.input.toLowerCase()
  ) {
    throw new ProviderRpcError(RPC.invalidParams, 'data and input differ');
  }
  if (request.gas !== undefined && request.gasLimit !== undefined && BigInt(request.gas) !== BigInt(request.gasLimit))
    throw new ProviderRpcError(RPC.invalidParams, 'gas and gasLimit differ');
  const data = request.data ?? request.input ?? '0x';
  const value = BigInt(request.value ?? 0);
  const call = { from: getAddress(account), to: request.to, data, value: `0x${value.toString(16)}` };
  // The nonce is filled in only at signing, after the approval.
  const unsigned = (fees: { gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) =>
    Transaction.from({ type: 2, chainId: chain.chainId, to: request.to ?? null, data, value, nonce: 0, ...fees });

  // What the preview refuses is refused before any window opens or node is asked anything more.
  previewOf(unsigned({ gasLimit: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }), chains, account);

  // A transfer that would revert (too few tokens, say) is refused now, not after it costs gas.
  try {
    await rpc(chain, 'eth_call', [call, 'pending']);
  } catch (error) {
    if (error instanceof ProviderRpcError && error.code !== RPC.chainDisconnected)
      throw new ProviderRpcError(RPC.internal, `The transaction would fail: ${revertReason(error)}`, error.data);
    throw error;
  }

  const givenGas = request.gas ?? request.gasLimit;
  // The page's gas limit (a prepared transfer carries one), else the node's estimate plus 20%.
  const gasLimit =
    givenGas !== undefined
      ? BigInt(givenGas)
      : (BigInt((await rpc(chain, 'eth_estimateGas', [call])) as string) * 12n) / 10n;
  let maxPriorityFeePerGas: bigint;
  let maxFeePerGas: bigint;
  if (request.maxFeePerGas !== undefined && request.maxPriorityFeePerGas !== undefined) {
    maxFeePerGas = BigInt(request.maxFeePerGas);
    maxPriorityFeePerGas = BigInt(request.maxPriorityFeePerGas);
  } else {
    const block = (await rpc(chain, 'eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas?: string } | null;
    const tip = await rpc(chain, 'eth_maxPriorityFeePerGas').then(
      (fee) => BigInt(fee as string),
      () => 1_000_000_000n,
    );
    maxPriorityFeePerGas = tip;
    maxFeePerGas = BigInt(block?.baseFeePerGas ?? '0x0') * 2n + tip;
  }
  const tx = unsigned({ gasLimit, maxFeePerGas, maxPriorityFeePerGas });
  return { tx, preview: previewOf(tx, chains, account) };
}

/** Signs the approved transaction with the next nonce and broadcasts it; the transaction hash. */
export async function signAndSend(
  tx: Transaction,
  chain: ChainEntry,
  key: { address: string; signingKey: { sign(digest: string): Signature } },
): Promise<string> {
  const signed = tx.clone();
  signed.nonce = Number(BigInt((await rpc(chain, 'eth_getTransactionCount', [key.address, 'pending'])) as string));
  signed.signature = key.signingKey.sign(signed.unsignedHash);
  return (await rpc(chain, 'eth_sendRawTransaction', [signed.serialized])) as string;
}

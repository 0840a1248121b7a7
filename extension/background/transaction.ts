/**
 * From an `eth_sendTransaction` request to a transaction Kassa may sign. The page's EIP-1193 fields
 * become an unsigned EIP-1559 transaction on the wallet's chain, with the wallet's own fees, or the
 * page's within Kassa's ceiling (lib/fee-policy.ts); the shared transfer preview
 * (lib/transfer-preview.ts) must describe it, or it is refused: Kassa signs Kassa transfers only
 * (fails closed), and the approval window shows that same preview.
 */
import { getAddress, Interface, isAddress, isHexString, Transaction, type Signature } from 'ethers';
import { z } from 'zod';
import {
  FEE_RULES,
  feeCeiling,
  FeeReadError,
  gwei,
  judgeFees,
  readChainFees,
  suggestedFees,
  type ChainFees,
  type FeeRefusal,
  type Fees,
} from '../../lib/fee-policy.ts';
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
  /** Whether the fee is unusually high (the page's, above what Kassa would pay), and what Kassa's own would be at most. */
  fee: { high: boolean; usualWei: bigint };
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

  const estimate = BigInt((await rpc(chain, 'eth_estimateGas', [call])) as string);
  const givenGas = request.gas ?? request.gasLimit;
  // The page's gas limit (a prepared transfer carries one) within reason, else the estimate plus 20%:
  // the limit times the max fee is the "at most" the window shows, so it must not be inflated at will.
  if (givenGas !== undefined && BigInt(givenGas) > estimate * FEE_RULES.gasOverEstimate)
    throw new ProviderRpcError(
      RPC.invalidParams,
      `The gas limit asked (${BigInt(givenGas)}) is more than ${FEE_RULES.gasOverEstimate} times what this transfer needs (${estimate})`,
    );
  const gasLimit = givenGas !== undefined ? BigInt(givenGas) : (estimate * 12n) / 10n;
  const fee = await decideFees(chain, request, gasLimit);
  const tx = unsigned({ gasLimit, ...fee.fees });
  return { tx, preview: previewOf(tx, chains, account), fee: { high: fee.high, usualWei: fee.usualWei } };
}

/**
 * The fees: Kassa's own from the chain (lib/fee-policy.ts), or the page's where it gives them (the
 * wallet panel sends the fees it showed) as long as they are within Kassa's ceiling for the chain
 * now; above it, the transaction is refused (4200) before any window opens.
 */
async function decideFees(
  chain: ChainEntry,
  request: { maxFeePerGas?: string | number; maxPriorityFeePerGas?: string | number },
  gasLimit: bigint,
): Promise<{ fees: Fees; high: boolean; usualWei: bigint }> {
  let chainFees: ChainFees;
  try {
    chainFees = await readChainFees((method, params) => rpc(chain, method, params));
  } catch (error) {
    if (error instanceof FeeReadError) throw new ProviderRpcError(RPC.chainDisconnected, error.message);
    throw error;
  }
  const own = suggestedFees(chainFees);
  const maxFeePerGas = request.maxFeePerGas !== undefined ? BigInt(request.maxFeePerGas) : own.maxFeePerGas;
  const tip =
    request.maxPriorityFeePerGas !== undefined ? BigInt(request.maxPriorityFeePerGas) : own.maxPriorityFeePerGas;
  const fees = {
    maxFeePerGas,
    // A page that gives only a max fee gets Kassa's tip, within that max fee.
    maxPriorityFeePerGas: request.maxPriorityFeePerGas === undefined && tip > maxFeePerGas ? maxFeePerGas : tip,
  };
  const verdict = judgeFees(fees, chainFees);
  if (!verdict.ok) {
    const ceiling = feeCeiling(chainFees);
    throw new ProviderRpcError(
      RPC.unsupported,
      FEE_REFUSALS[verdict.refusal]({
        maxFee: gwei(fees.maxFeePerGas),
        tip: gwei(fees.maxPriorityFeePerGas),
        ceiling: gwei(ceiling.maxFeePerGas),
        tipCeiling: gwei(ceiling.maxPriorityFeePerGas),
        baseFee: gwei(chainFees.baseFeePerGas),
        chain: chain.name,
      }),
    );
  }
  return { fees, high: verdict.high, usualWei: gasLimit * own.maxFeePerGas };
}

type FeeWords = Record<'maxFee' | 'tip' | 'ceiling' | 'tipCeiling' | 'baseFee' | 'chain', string>;
const FEE_REFUSALS: Record<FeeRefusal, (words: FeeWords) => string> = {
  'above-ceiling': (w) =>
    `The fee asked (${w.maxFee} gwei per gas) is above Kassa's ceiling on ${w.chain} now (${w.ceiling} gwei: the base fee is ${w.baseFee} gwei)`,
  'tip-above-ceiling': (w) =>
    `The priority fee asked (${w.tip} gwei per gas) is above Kassa's ceiling on ${w.chain} now (${w.tipCeiling} gwei)`,
  'below-base-fee': (w) =>
    `The fee asked (${w.maxFee} gwei per gas) is below ${w.chain}'s base fee (${w.baseFee} gwei): it would never be mined`,
  'tip-above-max-fee': (w) => `The priority fee asked (${w.tip} gwei) is more than the max fee (${w.maxFee} gwei)`,
};

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

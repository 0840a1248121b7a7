/**
 * EIP-1559 fees as Kassa decides them: from the chain itself, never from a page's or a proxy's
 * suggestion. The extension's wallet and the wallet panel both use these rules, so the fee the panel
 * shows ("at most …") is one the wallet accepts.
 *
 * - The base fee is the next block's (the last of `eth_feeHistory`'s `baseFeePerGas`).
 * - The tip is the median of recent blocks' median tips (`eth_feeHistory`, 50th percentile), blocks
 *   without transactions left out, and never below a floor: one block of outsized tips (a page that
 *   paid a million gwei once) does not move it, and an idle chain still gets a tip that is included.
 * - Kassa's own fees: max fee = 2 × base fee + tip (room for six full blocks of base-fee rises).
 * - The ceiling: no max fee above 4 × base fee + tip ceiling, no tip above the tip ceiling
 *   (3 × the tip, at least 2 gwei). A max fee below the base fee is refused too: it would never be mined.
 * - Unusually high (a warning, not a refusal): a max fee more than 1.5 × Kassa's own.
 *
 * No ethers here: the wallet panel loads this too, and it must stay small.
 */

const GWEI = 1_000_000_000n;

export const FEE_RULES = {
  /** How many recent blocks' tips are read. */
  historyBlocks: 20,
  /** The least tip Kassa pays: 0.1 gwei. */
  minPriorityFee: GWEI / 10n,
  /** The tip ceiling is this many times the tip… */
  tipCeilingFactor: 3n,
  /** …and at least this much: 2 gwei. */
  minTipCeiling: 2n * GWEI,
  /** Kassa's max fee: this many base fees, plus the tip. */
  baseFeeFactor: 2n,
  /** The ceiling's max fee: this many base fees, plus the tip ceiling. */
  ceilingBaseFeeFactor: 4n,
  /** A prepared gas limit may be at most this many times the chain's estimate (it bounds "at most"). */
  gasOverEstimate: 3n,
} as const;

/** What the chain says now. */
export interface ChainFees {
  /** The next block's base fee, in wei per gas. */
  baseFeePerGas: bigint;
  /** The tip recent blocks paid (see above), in wei per gas. */
  priorityFeePerGas: bigint;
}

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export type FeeRefusal = 'tip-above-ceiling' | 'above-ceiling' | 'below-base-fee' | 'tip-above-max-fee';

/** A fee's verdict: within the rules (and whether unusually high), or why it is refused. */
export type FeeVerdict = { ok: true; high: boolean } | { ok: false; refusal: FeeRefusal };

export class FeeReadError extends Error {}

const isQuantity = (value: unknown): value is string =>
  typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value);

function median(values: bigint[]): bigint | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Reads the base fee and recent tips with one `eth_feeHistory` call through `call` (the chain's JSON-RPC). */
export async function readChainFees(call: (method: string, params: unknown[]) => Promise<unknown>): Promise<ChainFees> {
  const history = (await call('eth_feeHistory', [`0x${FEE_RULES.historyBlocks.toString(16)}`, 'latest', [50]])) as {
    baseFeePerGas?: unknown;
    reward?: unknown;
  } | null;
  const baseFees = history?.baseFeePerGas;
  if (!Array.isArray(baseFees) || !baseFees.length || !baseFees.every(isQuantity))
    throw new FeeReadError('The chain answered eth_feeHistory without base fees');
  const rewards = Array.isArray(history?.reward) ? (history.reward as unknown[]) : [];
  const tips = rewards
    .map((row) => (Array.isArray(row) && isQuantity(row[0]) ? BigInt(row[0]) : 0n))
    .filter((tip) => tip > 0n);
  const tip = median(tips) ?? 0n;
  return {
    baseFeePerGas: BigInt(baseFees.at(-1)!),
    priorityFeePerGas: tip > FEE_RULES.minPriorityFee ? tip : FEE_RULES.minPriorityFee,
  };
}

/** The fees Kassa sets itself. */
export function suggestedFees({ baseFeePerGas, priorityFeePerGas }: ChainFees): Fees {
  return {
    maxFeePerGas: baseFeePerGas * FEE_RULES.baseFeeFactor + priorityFeePerGas,
    maxPriorityFeePerGas: priorityFeePerGas,
  };
}

/** The most Kassa accepts now. */
export function feeCeiling({ baseFeePerGas, priorityFeePerGas }: ChainFees): Fees {
  const tipCeiling = priorityFeePerGas * FEE_RULES.tipCeilingFactor;
  const maxPriorityFeePerGas = tipCeiling > FEE_RULES.minTipCeiling ? tipCeiling : FEE_RULES.minTipCeiling;
  return { maxFeePerGas: baseFeePerGas * FEE_RULES.ceilingBaseFeeFactor + maxPriorityFeePerGas, maxPriorityFeePerGas };
}

/** Whether `fees` (a page's, or the panel's) are within the rules for the chain as it is now. */
export function judgeFees(fees: Fees, chain: ChainFees): FeeVerdict {
  const ceiling = feeCeiling(chain);
  if (fees.maxPriorityFeePerGas > fees.maxFeePerGas) return { ok: false, refusal: 'tip-above-max-fee' };
  if (fees.maxFeePerGas > ceiling.maxFeePerGas) return { ok: false, refusal: 'above-ceiling' };
  if (fees.maxPriorityFeePerGas > ceiling.maxPriorityFeePerGas) return { ok: false, refusal: 'tip-above-ceiling' };
  if (fees.maxFeePerGas < chain.baseFeePerGas) return { ok: false, refusal: 'below-base-fee' };
  return { ok: true, high: fees.maxFeePerGas * 2n > suggestedFees(chain).maxFeePerGas * 3n };
}

/** Wei per gas in gwei, for messages: at most 9 decimals, trailing zeros dropped. */
export function gwei(wei: bigint): string {
  const whole = wei / GWEI;
  const fraction = (wei % GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

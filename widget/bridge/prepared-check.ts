import type { TransferPreview } from '../../lib/transfer-preview.ts';
import type { ChainEntry, TokenInfo } from '../../schemas/reforge.ts';

/** The transfer the user asked the proxy to prepare. */
export interface AskedTransfer {
  source: ChainEntry;
  destination: ChainEntry;
  sourceToken: TokenInfo;
  destinationToken: TokenInfo;
  /** The amount, in the source token's base units. */
  units: bigint;
  /** The connected account: it signs, and the tokens arrive at it. */
  account: string;
}

export type Mismatch = 'chain' | 'token' | 'amount' | 'destination' | 'recipient';

const sameAddress = (a: string | null, b: string) => a?.toLowerCase() === b.toLowerCase();

/**
 * What in the prepared transaction is not what the user asked for, or undefined when it all is:
 * the chain it runs on, the token it burns, the amount, the chain and token it mints, the account
 * it mints to. The panel fails closed on any of them: such a transaction never reaches the wallet.
 */
export function preparedMismatch(preview: TransferPreview, asked: AskedTransfer): Mismatch | undefined {
  if (preview.chain.chainId !== asked.source.chainId) return 'chain';
  if (!sameAddress(preview.contract, asked.sourceToken.address)) return 'token';
  if (preview.burn.units !== asked.units) return 'amount';
  if (
    preview.mint.chainId !== asked.destination.chainId ||
    !sameAddress(preview.mint.token.address, asked.destinationToken.address)
  )
    return 'destination';
  if (!sameAddress(preview.mint.to, asked.account)) return 'recipient';
  return undefined;
}

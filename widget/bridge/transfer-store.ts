import type { BridgeTransferDetail } from './events.ts';

/**
 * The transfer under way, kept in the tab's sessionStorage from the moment the wallet gives its hash
 * until it arrives or fails for good: a reload, or the panel taken out of the page and put back,
 * resumes following it instead of forgetting it (and instead of letting the user send it again).
 * It holds public facts only: hashes, addresses, amounts, block numbers.
 */
export interface TransferRecord extends BridgeTransferDetail {
  v: 1;
  /** `amount` in base units (a bigint as a string). */
  units: string;
  sourceToken: string;
  destinationToken: string;
  /** What was sent, to recognise the same transfer re-sent with other fees (a wallet's "speed up"). */
  to: string;
  data: string;
  /** The account's mined nonce before sending, and the transaction's own once seen. */
  nonceBefore: string;
  nonce?: string;
  /** The source chain's block when sent (where a replacement is looked for). */
  sourceBlock: string;
  /** The destination chain's block and the account's balance there when sent. */
  destinationBlock: string;
  destinationBalance: string;
  sentAt: number;
  /** The first hash: the transfer's name in the history, whatever hash a speed-up gives it later. */
  id?: string;
  /** Set once mined; `fee` is the network fee paid, native base units. */
  burnId?: string;
  blockNumber?: string;
  fee?: string;
  /** When the panel called it delayed (it stays so across a reload, until it arrives or is refunded). */
  delayedAt?: number;
}

const PREFIX = 'kassa-bridge:';

export class TransferStore {
  constructor(private readonly key: string) {}

  read(): TransferRecord | undefined {
    try {
      const record = JSON.parse(sessionStorage.getItem(PREFIX + this.key) ?? 'null') as TransferRecord | null;
      return record?.v === 1 && typeof record.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(record.hash)
        ? record
        : undefined;
    } catch {
      return undefined;
    }
  }

  save(record: TransferRecord): void {
    try {
      sessionStorage.setItem(PREFIX + this.key, JSON.stringify(record));
    } catch {
      // Storage full or blocked: the transfer is followed all the same, only not across a reload.
    }
  }

  clear(): void {
    try {
      sessionStorage.removeItem(PREFIX + this.key);
    } catch {
      // nothing kept
    }
  }
}

import { USER_REJECTED } from '../../shared/wallet/wallet-errors.ts';
import type { DiscoveredWallet, Eip1193Provider } from '../../shared/wallet/wallets.ts';

/** The rdns of an address the customer entered: no wallet of the browser announces it. */
export const ADDRESS_RDNS = 'kassa.address';

/** The ownership message waiting for the customer's signature. */
export interface PendingSignature {
  message: string;
  resolve(signature: string): void;
  reject(error: unknown): void;
}

/** `personal_sign`'s first parameter back to the message's text (its UTF-8 bytes in hex). */
function messageText(hex: unknown): string {
  if (typeof hex !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(hex)) return String(hex);
  const bytes = new Uint8Array((hex.length - 2) / 2);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = parseInt(hex.slice(2 + index * 2, 4 + index * 2), 16);
  return new TextDecoder().decode(bytes);
}

const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

/**
 * An address the customer typed, standing in for a wallet of this browser: it has the one account,
 * is on no network, and "signs" by showing the message and waiting for the signature the customer
 * makes in their wallet app and pastes back. The element then buys exactly as with any wallet: the
 * proxy checks the signature (EIP-191, or EIP-1271 for a contract wallet) before anything is paid.
 */
export class AddressSigner implements Eip1193Provider {
  pending?: PendingSignature;

  constructor(
    readonly address: string,
    /** Something the customer must see changed: the message to sign came, or went. */
    private readonly changed: () => void,
  ) {}

  /** As a wallet of this browser is offered to the element (EIP-6963's shape). */
  wallet(name: string): DiscoveredWallet {
    return { info: { uuid: ADDRESS_RDNS, name, icon: '', rdns: ADDRESS_RDNS }, provider: this };
  }

  request({ method, params }: { method: string; params?: readonly unknown[] | Record<string, unknown> }) {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return Promise.resolve([this.address]);
      case 'personal_sign':
        this.cancel();
        return new Promise<unknown>((resolve, reject) => {
          const message = messageText(Array.isArray(params) ? params[0] : undefined);
          this.pending = { message, resolve, reject };
          this.changed();
        });
      default:
        return Promise.reject(rpcError(4200, `An address entered by hand does not answer ${method}`));
    }
  }

  /** The customer pasted a signature that reads as one: the purchase goes on with it. */
  sign(signature: string): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve(signature);
    this.changed();
  }

  /** The customer went back: as a wallet's "Reject" (4001), nothing is bought. */
  cancel(): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(rpcError(USER_REJECTED, 'The customer did not paste a signature'));
  }
}

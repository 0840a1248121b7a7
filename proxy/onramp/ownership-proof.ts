import { getAddress, hashMessage, Interface, recoverAddress, Signature } from 'ethers';
import { chainCall, ChainRpcError } from './chain-rpc.ts';

/** EIP-1271: what a contract wallet's `isValidSignature` answers for a signature it accepts. */
const EIP1271_MAGIC = '0x1626ba7e';
const EIP1271 = new Interface(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)']);

export type ProofOutcome =
  /** Signed by the wallet's own key (EIP-191 `personal_sign`). */
  | { valid: true; kind: 'key' }
  /** A contract wallet accepted it (EIP-1271). */
  | { valid: true; kind: 'contract' }
  | { valid: false; reason: string }
  /** The chain could not be asked (a contract wallet's answer is needed): try again later. */
  | { valid: 'unknown'; reason: string };

/** The address a `personal_sign` signature of `message` came from; undefined when it is not a signature. */
function signerOf(message: string, signature: string): string | undefined {
  try {
    return recoverAddress(hashMessage(message), Signature.from(signature));
  } catch {
    return undefined;
  }
}

/**
 * Whether `signature` proves that `wallet` signed exactly `message`. A key's signature is recovered
 * locally; when it is not the wallet's and the wallet is a contract, the contract is asked on its own
 * chain (EIP-1271), through the chain's RPC, with a deadline.
 */
export async function verifyOwnership(input: {
  message: string;
  signature: string;
  wallet: string;
  rpcUrl: string;
  timeoutMs?: number;
}): Promise<ProofOutcome> {
  const wallet = getAddress(input.wallet);
  if (signerOf(input.message, input.signature) === wallet) return { valid: true, kind: 'key' };
  const options = { timeoutMs: input.timeoutMs ?? 5_000, maxBytes: 1_048_576 };
  try {
    const code = await chainCall<string>(input.rpcUrl, 'eth_getCode', [wallet, 'latest'], options);
    if (code === '0x' || code === '')
      return { valid: false, reason: `The signature does not prove that ${wallet} signed this purchase` };
    const data = EIP1271.encodeFunctionData('isValidSignature', [hashMessage(input.message), input.signature]);
    const answer = await chainCall<string>(input.rpcUrl, 'eth_call', [{ to: wallet, data }, 'latest'], options);
    // A contract that reverts, or returns anything but the magic value, does not accept it.
    if (typeof answer === 'string' && answer.slice(0, 10).toLowerCase() === EIP1271_MAGIC)
      return { valid: true, kind: 'contract' };
  } catch (error) {
    if (error instanceof ChainRpcError && !/execution reverted|revert/i.test(error.message))
      return { valid: 'unknown', reason: error.message };
  }
  return { valid: false, reason: `The contract wallet ${wallet} does not accept this signature for this purchase` };
}

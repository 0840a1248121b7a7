import { isError } from 'ethers';
import { TOKEN_INTERFACE } from './token-interface.ts';

export interface Revert {
  /** The custom error's name, e.g. `ERC20InsufficientBalance`. */
  name: string;
  /** `ERC20InsufficientBalance(sender=0x…, balance=0, needed=5)`. */
  text: string;
}

/** The token's custom error behind a failed call or estimate, when the node reported revert data. */
export function decodeRevert(error: unknown): Revert | undefined {
  // A revert without a custom error (bad calldata, out of gas) carries "0x" or nothing.
  if (!isError(error, 'CALL_EXCEPTION') || !error.data || error.data.length < 10) return undefined;
  let parsed;
  try {
    parsed = TOKEN_INTERFACE.parseError(error.data);
  } catch {
    return undefined;
  }
  if (!parsed) return undefined;
  const args = parsed.fragment.inputs.map((input, index) => `${input.name}=${String(parsed.args[index])}`);
  return { name: parsed.name, text: `${parsed.name}(${args.join(', ')})` };
}

/** The shortest useful account of an ethers or node error, for a 400 body or a log line. */
export function errorMessage(error: unknown): string {
  const revert = decodeRevert(error);
  if (revert) return `execution reverted: ${revert.text}`;
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    const info = 'info' in error ? (error.info as { error?: { message?: unknown } } | undefined) : undefined;
    const node = typeof info?.error?.message === 'string' ? info.error.message : undefined;
    return node && node !== error.shortMessage ? `${error.shortMessage}: ${node}` : error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

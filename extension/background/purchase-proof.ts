/**
 * The one message Kassa's wallet signs with `personal_sign`: the ownership proof of a Kassa on-ramp
 * purchase, an EIP-4361 ("Sign-In with Ethereum") message the proxy wrote (lib/siwe.ts), bound to the
 * site that asks. Anything else is refused before any window opens, with the reason:
 *
 * - not exactly a message `parseSiweMessage` reads back, with a statement `parsePurchaseStatement`
 *   reads (text before, after or inside it; another statement; another EIP-4361 message): 4200;
 * - domain or URI other than the asking page's origin (the port's sender, never the page's word): 4100.
 *   This is EIP-4361's point: a signature for shop.example proves nothing to evil.example, and a
 *   page of evil.example cannot have shop.example's message signed;
 * - an address other than the account connected to that site: 4100;
 * - expired, or issued more than `ISSUED_AT_SKEW_MS` in the future: -32602;
 * - a chain the proxy does not list, a statement naming another chain than the one its Chain ID is,
 *   or a coin that chain does not carry: 4200.
 */
import { getAddress, isAddress } from 'ethers';
import {
  isStatementChainName,
  parsePurchaseStatement,
  parseSiweMessage,
  type PurchaseStatement,
  type SiweMessage,
} from '../../lib/siwe.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';

/** How far in the future a message's Issued At may be (the proxy's clock and this computer's differ a little). */
export const ISSUED_AT_SKEW_MS = 2 * 60_000;

/** A message that passed every check: what the approval window shows, and the exact text signed. */
export interface PurchaseProof {
  /** The message, exactly as it is signed. */
  text: string;
  message: SiweMessage;
  statement: PurchaseStatement;
  /** The listed chain the message's Chain ID names. */
  chain: ChainEntry;
}

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * `personal_sign` params, `[message, address]` (EIP-1474's order): the message as 0x-hex of its UTF-8
 * bytes (as libraries send it) or as text. Bytes that are not UTF-8 text are no message Kassa signs.
 */
export function personalSignParams(params: unknown): { text: string; address: string } {
  if (!Array.isArray(params) || params.length !== 2 || typeof params[0] !== 'string' || typeof params[1] !== 'string')
    throw new ProviderRpcError(RPC.invalidParams, 'personal_sign takes [message, address]');
  const [data, address] = params as [string, string];
  if (!isAddress(address)) throw new ProviderRpcError(RPC.invalidParams, 'personal_sign takes [message, address]');
  if (!HEX_BYTES.test(data)) return { text: data, address };
  const bytes = Uint8Array.from(data.slice(2).match(/../g) ?? [], (pair) => parseInt(pair, 16));
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), address };
  } catch {
    throw refusedKind();
  }
}

const refusedKind = () =>
  new ProviderRpcError(
    RPC.unsupported,
    'Kassa signs only the ownership proof of a Kassa purchase (an EIP-4361 message its proxy wrote); this message is not one',
  );

/** The statement's chain name as the proxy writes it for `chain` (lib/siwe.ts: `chain <id>` when its name cannot stand there). */
const statementName = (chain: ChainEntry) => (isStatementChainName(chain.name) ? chain.name : `chain ${chain.chainId}`);

/** The message's fields and its purchase, when it is exactly the one kind Kassa signs; else its refusal (4200). */
export function readPurchaseProof(text: string): { message: SiweMessage; statement: PurchaseStatement } {
  const message = parseSiweMessage(text);
  const statement = message && parsePurchaseStatement(message.statement);
  if (!message || !statement) throw refusedKind();
  return { message, statement };
}

/**
 * Checks a `personal_sign` of `origin` (the port sender's) against everything above, for `account`
 * (the account connected to that origin, EIP-55) at `now`, with the proxy's chain listing. Returns the proof,
 * or throws the refusal the page receives.
 */
export function checkPurchaseProof(
  text: string,
  context: { origin: string; account: string; chains: ChainEntry[]; now: number },
): PurchaseProof {
  const { message, statement } = readPurchaseProof(text);
  const { origin, account, chains, now } = context;
  if (message.uri !== origin || message.domain !== new URL(origin).host)
    throw new ProviderRpcError(
      RPC.unauthorized,
      `This message is for ${message.domain}, not for ${new URL(origin).host}: Kassa signs a site's own messages only`,
    );
  if (!isAddress(message.address) || message.address !== getAddress(message.address) || message.address !== account)
    throw new ProviderRpcError(
      RPC.unauthorized,
      `This message names ${message.address}, not the account Kassa connected to this site (${account})`,
    );
  if (now >= Date.parse(message.expirationTime))
    throw new ProviderRpcError(RPC.invalidParams, `This message expired at ${message.expirationTime}`);
  if (Date.parse(message.issuedAt) > now + ISSUED_AT_SKEW_MS)
    throw new ProviderRpcError(
      RPC.invalidParams,
      `This message says it is issued at ${message.issuedAt}, which is still to come`,
    );
  const chain = chains.find((entry) => entry.chainId === message.chainId);
  if (!chain)
    throw new ProviderRpcError(RPC.unsupported, `Chain ${message.chainId} is not among the chains Kassa's proxy lists`);
  if (statement.chainName !== statementName(chain))
    throw new ProviderRpcError(
      RPC.unsupported,
      `This message names ${statement.chainName}, but its Chain ID ${chain.chainId} is ${chain.name}`,
    );
  if (!Object.hasOwn(chain.tokens, statement.symbol))
    throw new ProviderRpcError(RPC.unsupported, `${chain.name} carries no ${statement.symbol}`);
  return { text, message, statement, chain };
}

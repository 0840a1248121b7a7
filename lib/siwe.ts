/**
 * The ownership proof of a stablecoin purchase: an EIP-4361 ("Sign-In with Ethereum") message that
 * the proxy issues, the customer's wallet signs (`personal_sign`), and the proxy verifies before any
 * payment starts. The proxy writes it, the Kassa extension reads it back to show it in words and to
 * refuse anything else, so both use this one grammar. It is the subset of EIP-4361 Kassa writes:
 * every field in its place, one statement, no resources. No dependencies: the extension imports it.
 */

export interface SiweMessage {
  /** The requesting site's authority (`shop.example`, `127.0.0.1:3000`): the page's origin without its scheme. */
  domain: string;
  /** The wallet, as written (EIP-55 checksum form when Kassa writes it). */
  address: string;
  /** One line of printable ASCII: what signing it does. */
  statement: string;
  /** The requesting site's origin (`https://shop.example`). */
  uri: string;
  chainId: number;
  /** At least 8 letters and digits (EIP-4361); Kassa uses 24. */
  nonce: string;
  /** ISO 8601 (`toISOString()`). */
  issuedAt: string;
  expirationTime: string;
  /** The quote the message was issued for. */
  requestId: string;
}

const PRINTABLE = /^[\x20-\x7e]+$/;
const AUTHORITY = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^[A-Za-z0-9]{8,64}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const REQUEST_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Why a message is not one Kassa writes, or null when it is. */
function problem(message: SiweMessage): string | null {
  if (!AUTHORITY.test(message.domain)) return 'domain is not a host';
  if (!ADDRESS.test(message.address)) return 'address is not an Ethereum address';
  if (!PRINTABLE.test(message.statement)) return 'statement must be one line of printable ASCII';
  let uri: URL;
  try {
    uri = new URL(message.uri);
  } catch {
    return 'URI is not a URL';
  }
  if (uri.origin !== message.uri || uri.host !== message.domain) return 'URI must be the origin of domain';
  if (!Number.isSafeInteger(message.chainId) || message.chainId <= 0) return 'Chain ID must be a positive integer';
  if (!NONCE.test(message.nonce)) return 'Nonce must be 8 to 64 letters and digits';
  for (const time of [message.issuedAt, message.expirationTime])
    if (!TIMESTAMP.test(time) || Number.isNaN(Date.parse(time))) return 'times must be ISO 8601 in UTC';
  if (Date.parse(message.expirationTime) <= Date.parse(message.issuedAt)) return 'it expires before it is issued';
  if (!REQUEST_ID.test(message.requestId)) return 'Request ID must be letters, digits, _ and -';
  return null;
}

/** The message's text, exactly as the wallet shows and signs it. Throws on fields it cannot carry. */
export function formatSiweMessage(message: SiweMessage): string {
  const wrong = problem(message);
  if (wrong) throw new Error(`Not an EIP-4361 message Kassa writes: ${wrong}`);
  return [
    `${message.domain} wants you to sign in with your Ethereum account:`,
    message.address,
    '',
    message.statement,
    '',
    `URI: ${message.uri}`,
    'Version: 1',
    `Chain ID: ${message.chainId}`,
    `Nonce: ${message.nonce}`,
    `Issued At: ${message.issuedAt}`,
    `Expiration Time: ${message.expirationTime}`,
    `Request ID: ${message.requestId}`,
  ].join('\n');
}

const FIELDS = ['URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time', 'Request ID'] as const;

/**
 * Reads a message back; null unless it is exactly what `formatSiweMessage` writes (every line in its
 * place, nothing before or after), so a signer never signs words it did not show.
 */
export function parseSiweMessage(text: string): SiweMessage | null {
  const lines = text.split('\n');
  if (lines.length !== 12 || lines[2] !== '' || lines[4] !== '') return null;
  const header = /^(.+) wants you to sign in with your Ethereum account:$/.exec(lines[0]!);
  if (!header) return null;
  const values: string[] = [];
  for (const [index, name] of FIELDS.entries()) {
    const line = lines[5 + index]!;
    if (!line.startsWith(`${name}: `)) return null;
    values.push(line.slice(name.length + 2));
  }
  const [uri, version, chainId, nonce, issuedAt, expirationTime, requestId] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (version !== '1' || !/^[1-9]\d{0,15}$/.test(chainId)) return null;
  const message: SiweMessage = {
    domain: header[1]!,
    address: lines[1]!,
    statement: lines[3]!,
    uri,
    chainId: Number(chainId),
    nonce,
    issuedAt,
    expirationTime,
    requestId,
  };
  return problem(message) === null && formatSiweMessage(message) === text ? message : null;
}

/** What a purchase's statement says, in the words the customer confirms. */
export interface PurchaseStatement {
  /** Whole tokens, a decimal string (`"25"`, `"12.5"`). */
  tokens: string;
  symbol: string;
  chainName: string;
  /** What the customer pays, fee included, with its two decimals (`"25.50"`). */
  payment: string;
  currencyCode: string;
  /** The merchant's fee in the payment, `"0.00"` when there is none. */
  fee: string;
}

const DECIMAL = '\\d{1,12}(?:\\.\\d{1,18})?';
const MONEY = '\\d{1,12}\\.\\d{2}';
const STATEMENT = new RegExp(
  `^Buy (${DECIMAL}) ([A-Za-z]{2,10}) on (.{1,60}) for (${MONEY}) ([A-Z]{3})(?: \\(fee (${MONEY}) ([A-Z]{3}) included\\))?, delivered to this address\\.$`,
);
const CHAIN_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9 .-]{0,58}[A-Za-z0-9.])?$/;

/**
 * Whether a chain's name can stand in a statement: letters, digits, single spaces, dots and hyphens,
 * and never the word "for" (the statement must read one way only). Others are named `chain <id>`.
 */
export const isStatementChainName = (name: string): boolean =>
  CHAIN_NAME.test(name) && !name.includes('  ') && !/(^| )for( |$)/i.test(name);

/** "Buy 25 eEUR on Kassa Local Two for 25.50 EUR (fee 0.50 EUR included), delivered to this address." */
export function purchaseStatement(purchase: PurchaseStatement): string {
  const fee = /^0+(?:\.0+)?$/.test(purchase.fee) ? '' : ` (fee ${purchase.fee} ${purchase.currencyCode} included)`;
  const statement = `Buy ${purchase.tokens} ${purchase.symbol} on ${purchase.chainName} for ${purchase.payment} ${purchase.currencyCode}${fee}, delivered to this address.`;
  if (parsePurchaseStatement(statement) === null) throw new Error(`Not a purchase statement: ${statement}`);
  return statement;
}

/** A purchase statement read back; null for any other statement. */
export function parsePurchaseStatement(statement: string): PurchaseStatement | null {
  const match = STATEMENT.exec(statement);
  if (!match) return null;
  const [, tokens, symbol, chainName, payment, currencyCode, fee, feeCurrency] = match as unknown as string[];
  if (!isStatementChainName(chainName!) || (feeCurrency !== undefined && feeCurrency !== currencyCode)) return null;
  return {
    tokens: tokens!,
    symbol: symbol!,
    chainName: chainName!,
    payment: payment!,
    currencyCode: currencyCode!,
    fee: fee ?? '0.00',
  };
}

/**
 * Wire formats of the cross-chain transfer ("reforge") service (seeds/002_*.txt). The seed leaves the
 * shape of tokens, transactions and receipts, and the format of amounts and chain ids, open; the
 * choices are in docs/upstream.md. The emulator validates with these schemas, the proxy, the wallet
 * panel and the extension parse with them.
 */
import { z } from 'zod';
import { compareDecimals, isDecimal, numberToDecimal } from '../lib/money.ts';
import { evmAddressSchema } from './orders.ts';
import { URL_MAX } from './pay.ts';

export { REFORGE_TOKEN_ABI } from '../lib/reforge-abi.ts';

/** The longest amount or chain id text accepted: far beyond any real value, short of abuse. */
const MAX_NUMBER_TEXT = 100;

// ---- chain listings: GET /getChainsAndTokens, GET /getTestChainsAndTokens ----

export const tokenInfoSchema = z.object({
  /** The token contract on this chain, EIP-55 checksummed. */
  address: z.string(),
  decimals: z.number().int(),
  symbol: z.string(),
  name: z.string(),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;

export const nativeCurrencySchema = z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int() });
export type NativeCurrency = z.infer<typeof nativeCurrencySchema>;

export const chainEntrySchema = z.object({
  name: z.string(),
  chainId: z.number().int().positive(),
  /** Where a wallet sends this chain's transactions (EIP-3085 `rpcUrls`). */
  rpcUrl: z.string(),
  nativeCurrency: nativeCurrencySchema,
  /** The chain's block explorer (EIP-3085 `blockExplorerUrls`), where it has one: receipts link to `${url}/tx/${hash}`. */
  blockExplorerUrl: z.string().max(2048).optional(),
  /** Keyed by symbol (`eUSD`, ...): every stablecoin the chain carries. */
  tokens: z.record(z.string(), tokenInfoSchema),
});
export type ChainEntry = z.infer<typeof chainEntrySchema>;
export const chainListSchema = z.array(chainEntrySchema);

// ---- POST /prepareReforge ----

/**
 * Whole tokens as a decimal ("12.5" is 12.5 eUSD), as a string or a JSON number; kept as a string.
 * The bound on fraction digits is the token's `decimals`, checked once the token is known.
 */
export const sourceAmountSchema = z
  .union([z.string(), z.number()], {
    error: (iss) =>
      iss.input === undefined ? 'sourceAmount is required' : 'sourceAmount must be a decimal string or number',
  })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? numberToDecimal(value) : value.trim();
    if (text === undefined || text.length > MAX_NUMBER_TEXT || !isDecimal(text) || compareDecimals(text, '0') <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'sourceAmount must be a positive decimal number of whole tokens, such as "12.5"',
      });
      return z.NEVER;
    }
    return text;
  });

/** A chain id as a JSON number or a string of digits; the seed does not say which. */
export const chainIdFieldSchema = (field: string) =>
  z
    .union([z.number(), z.string()], {
      error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a positive integer`),
    })
    .transform((value, ctx) => {
      const id = typeof value === 'number' ? value : /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(id) || id <= 0) {
        ctx.addIssue({ code: 'custom', message: `${field} must be a positive integer` });
        return z.NEVER;
      }
      return id;
    });

const urlText = (field: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .min(1, `${field} must not be empty`)
    .max(URL_MAX, `${field} must be at most ${URL_MAX} characters`);

export const prepareReforgeRequestSchema = z.strictObject({
  sourceAmount: sourceAmountSchema,
  sourceToken: evmAddressSchema('sourceToken'),
  destinationToken: evmAddressSchema('destinationToken'),
  destinationChainId: chainIdFieldSchema('destinationChainId'),
  /** Names the source chain; it must be one the service serves (it never calls other URLs). */
  sourceRpcUrl: urlText('sourceRpcUrl').optional(),
});
export type PrepareReforgeRequest = z.input<typeof prepareReforgeRequestSchema>;
export type PrepareReforge = z.output<typeof prepareReforgeRequestSchema>;

/** `tx`: the serialized unsigned EIP-1559 transaction (`0x02…`) that burns on the source chain. */
export const prepareReforgeResponseSchema = z.object({
  status: z.literal(true),
  tx: z.string().regex(/^0x02[0-9a-f]*$/),
});
export type PrepareReforgeResponse = z.infer<typeof prepareReforgeResponseSchema>;

// ---- POST /executeReforge, POST /executeReforgeAsync ----

const hexText = (field: string, max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .max(max, `${field} must be at most ${max} characters`)
    .regex(/^0x([0-9a-fA-F]{2})+$/, `${field} must be 0x-prefixed hex bytes`);

// Messages never echo the key: a private key must not reach a log or an error body.
const privateKeySchema = z
  .string({ error: 'walletData.privateKey must be a string' })
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'walletData.privateKey must be 32 bytes of hex (64 hex digits, 0x optional)');

export const walletDataSchema = z
  .strictObject(
    {
      rpcUrl: urlText('walletData.rpcUrl'),
      privateKey: privateKeySchema.optional(),
      /** A JSON-RPC signer object; it cannot sign over HTTP, so a private key is still needed. */
      signer: z.unknown().optional(),
    },
    { error: (iss) => (iss.input === undefined ? 'walletData is required' : 'walletData must be an object') },
  )
  .superRefine((wallet, ctx) => {
    if (wallet.privateKey !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['privateKey'],
      message:
        wallet.signer === undefined
          ? 'walletData.privateKey is required'
          : 'walletData.signer cannot sign over HTTP: send walletData.privateKey (or sign the prepared tx in the wallet and broadcast it yourself)',
    });
  });

export const executeReforgeRequestSchema = z.strictObject({
  tx: hexText('tx', 64 * 1024),
  walletData: walletDataSchema,
});
export type ExecuteReforgeRequest = z.input<typeof executeReforgeRequestSchema>;

/** Integers that can exceed 2^53 (wei, gas) travel as decimal strings. */
const bigText = z.string().regex(/^\d+$/);
const nullableBigText = bigText.nullable();

/** A broadcast transaction, as ethers' TransactionResponse names its fields. */
export const transactionResponseSchema = z.object({
  hash: z.string(),
  type: z.number().int(),
  chainId: z.number().int(),
  from: z.string(),
  to: z.string().nullable(),
  nonce: z.number().int(),
  data: z.string(),
  value: bigText,
  gasLimit: bigText,
  gasPrice: nullableBigText,
  maxFeePerGas: nullableBigText,
  maxPriorityFeePerGas: nullableBigText,
  blockNumber: z.number().int().nullable(),
  blockHash: z.string().nullable(),
  signature: z.object({ r: z.string(), s: z.string(), yParity: z.number().int(), v: z.number().int() }),
});
export type TransactionResponseJson = z.infer<typeof transactionResponseSchema>;

export const logSchema = z.object({
  address: z.string(),
  topics: z.array(z.string()),
  data: z.string(),
  index: z.number().int(),
  blockNumber: z.number().int(),
  blockHash: z.string(),
  transactionHash: z.string(),
  transactionIndex: z.number().int(),
});
export type LogJson = z.infer<typeof logSchema>;

/** A mined transaction, as ethers' TransactionReceipt names its fields; `status` 1 is success. */
export const transactionReceiptSchema = z.object({
  hash: z.string(),
  index: z.number().int(),
  type: z.number().int(),
  blockNumber: z.number().int(),
  blockHash: z.string(),
  from: z.string(),
  to: z.string().nullable(),
  contractAddress: z.string().nullable(),
  status: z.number().int().nullable(),
  gasUsed: bigText,
  cumulativeGasUsed: bigText,
  gasPrice: bigText,
  logsBloom: z.string(),
  logs: z.array(logSchema),
});
export type TransactionReceiptJson = z.infer<typeof transactionReceiptSchema>;

export const executeReforgeResponseSchema = z.object({ status: z.literal(true), tx: transactionResponseSchema });
export type ExecuteReforgeResponse = z.infer<typeof executeReforgeResponseSchema>;
export const executeReforgeAsyncResponseSchema = z.object({
  status: z.literal(true),
  receipt: transactionReceiptSchema,
});
export type ExecuteReforgeAsyncResponse = z.infer<typeof executeReforgeAsyncResponseSchema>;

/** Every failure of every reforge operation: status 400 and one message. */
export const reforgeErrorSchema = z.object({ error: z.string() });
export type ReforgeErrorBody = z.infer<typeof reforgeErrorSchema>;

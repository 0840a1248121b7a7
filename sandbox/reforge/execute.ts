import { Transaction, Wallet, type TransactionResponse } from 'ethers';
import type { z } from 'zod';
import type {
  executeReforgeRequestSchema,
  TransactionReceiptJson,
  TransactionResponseJson,
} from '../../schemas/reforge.ts';
import { KeyedSerial } from '../chains/keyed-serial.ts';
import type { LocalChain, LocalChains } from '../chains/local-chains.ts';
import { waitForReceipt } from '../chains/provider.ts';
import { errorMessage } from '../chains/revert.ts';
import { TOKEN_INTERFACE } from '../chains/token-interface.ts';
import { ReforgeError } from './reforge-error.ts';
import { receiptJson, transactionJson } from './wire.ts';

type ExecuteRequest = z.output<typeof executeReforgeRequestSchema>;

const GAS_MARGIN_PERCENT = 120n;
const MINING_TIMEOUT_MS = 30_000;

/**
 * The upstream's execute operations, kept because legacy clients call them: the service signs a
 * prepared transaction with a private key the caller sends, and broadcasts it. Kassa's own parts
 * never call them (the proxy refuses private keys). The key is used for this one signature, never
 * stored and never logged; error messages never quote it.
 */
export class ReforgeExecutor {
  /** One transaction at a time per sender and chain, so concurrent requests never reuse a nonce. */
  private readonly serial = new KeyedSerial();

  constructor(private readonly chains: LocalChains) {}

  /** `executeReforge`: answers once the chain has accepted the transaction. */
  async broadcast(request: ExecuteRequest): Promise<TransactionResponseJson> {
    return transactionJson((await this.send(request)).sent);
  }

  /** `executeReforgeAsync`: answers once the transaction is mined, with its receipt. */
  async mined(request: ExecuteRequest): Promise<TransactionReceiptJson> {
    const { sent, chain } = await this.send(request);
    let receipt;
    try {
      receipt = await waitForReceipt(chain.provider, sent.hash, MINING_TIMEOUT_MS);
    } catch (error) {
      throw new ReforgeError(`Transaction ${sent.hash} was broadcast but not seen mined: ${errorMessage(error)}`);
    }
    if (receipt.status !== 1) throw new ReforgeError(`Transaction ${sent.hash} was mined but reverted`);
    return receiptJson(receipt);
  }

  private async send(request: ExecuteRequest): Promise<{ sent: TransactionResponse; chain: LocalChain }> {
    const { tx, chain } = this.decode(request);
    let wallet: Wallet;
    try {
      wallet = new Wallet(request.walletData.privateKey!, chain.provider);
    } catch {
      throw new ReforgeError('walletData.privateKey is not a valid secp256k1 private key');
    }
    const { provider } = chain;
    const call = { from: wallet.address, to: tx.to!, data: tx.data, value: tx.value };
    const sent = await this.serial.run(`${chain.chainId}:${wallet.address}`, async () => {
      let gas: bigint;
      try {
        gas = await provider.estimateGas(call);
      } catch (error) {
        throw new ReforgeError(`The transaction would fail: ${errorMessage(error)}`);
      }
      try {
        const [nonce, fees] = await Promise.all([
          provider.getTransactionCount(wallet.address, 'pending'),
          provider.getFeeData(),
        ]);
        const margin = (gas * GAS_MARGIN_PERCENT) / 100n;
        const signed = await wallet.signTransaction({
          ...call,
          type: 2,
          chainId: chain.chainId,
          nonce,
          gasLimit: tx.gasLimit > margin ? tx.gasLimit : margin,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        return await provider.broadcastTransaction(signed);
      } catch (error) {
        throw new ReforgeError(`The chain refused the transaction: ${errorMessage(error)}`);
      }
    });
    return { sent, chain };
  }

  /** The prepared transaction and its chain; only an unsigned reforge burn on a served token passes. */
  private decode(request: ExecuteRequest): { tx: Transaction; chain: LocalChain } {
    let tx: Transaction;
    try {
      tx = Transaction.from(request.tx);
    } catch (error) {
      throw new ReforgeError(`Invalid tx: not a serialized transaction (${errorMessage(error)})`);
    }
    if (tx.signature)
      throw new ReforgeError('Invalid tx: it is already signed; send the unsigned tx that prepareReforge returned');
    const chain = tx.chainId <= BigInt(Number.MAX_SAFE_INTEGER) ? this.chains.byId(Number(tx.chainId)) : undefined;
    if (!chain)
      throw new ReforgeError(`Invalid tx: chain ${tx.chainId} is not supported (supported: ${this.chains.ids()})`);
    const named = this.chains.byRpcUrl(request.walletData.rpcUrl);
    if (!named)
      throw new ReforgeError(
        "walletData.rpcUrl is not the RPC URL of a supported chain (the listings give each chain's rpcUrl)",
      );
    if (named !== chain)
      throw new ReforgeError(
        `walletData.rpcUrl is the RPC URL of chain ${named.chainId}, but tx is for chain ${chain.chainId}`,
      );
    const target = tx.to ? this.chains.byToken(tx.to) : undefined;
    if (target?.chain !== chain || !isReforgeCall(tx.data)) {
      throw new ReforgeError(
        `Invalid tx: not a reforge burn on a stablecoin of chain ${chain.chainId} (prepare it with prepareReforge)`,
      );
    }
    return { tx, chain };
  }
}

function isReforgeCall(data: string): boolean {
  try {
    return TOKEN_INTERFACE.parseTransaction({ data })?.name === 'reforge';
  } catch {
    return false;
  }
}

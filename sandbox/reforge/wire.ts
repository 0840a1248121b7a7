import type { TransactionReceipt, TransactionResponse } from 'ethers';
import type { TransactionReceiptJson, TransactionResponseJson } from '../../schemas/reforge.ts';

const big = (value: bigint) => value.toString();
// A just-broadcast EIP-1559 response has no gasPrice yet (ethers leaves it undefined): null on the wire.
const bigOrNull = (value: bigint | null | undefined) => (value == null ? null : value.toString());

/** A transaction response as JSON: ethers' field names, big integers as decimal strings. */
export function transactionJson(tx: TransactionResponse): TransactionResponseJson {
  return {
    hash: tx.hash,
    type: tx.type,
    chainId: Number(tx.chainId),
    from: tx.from,
    to: tx.to,
    nonce: tx.nonce,
    data: tx.data,
    value: big(tx.value),
    gasLimit: big(tx.gasLimit),
    gasPrice: bigOrNull(tx.gasPrice),
    maxFeePerGas: bigOrNull(tx.maxFeePerGas),
    maxPriorityFeePerGas: bigOrNull(tx.maxPriorityFeePerGas),
    blockNumber: tx.blockNumber,
    blockHash: tx.blockHash,
    signature: { r: tx.signature.r, s: tx.signature.s, yParity: tx.signature.yParity, v: tx.signature.v },
  };
}

/** A receipt as JSON, the same way. */
export function receiptJson(receipt: TransactionReceipt): TransactionReceiptJson {
  return {
    hash: receipt.hash,
    index: receipt.index,
    type: receipt.type,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    from: receipt.from,
    to: receipt.to,
    contractAddress: receipt.contractAddress,
    status: receipt.status,
    gasUsed: big(receipt.gasUsed),
    cumulativeGasUsed: big(receipt.cumulativeGasUsed),
    gasPrice: big(receipt.gasPrice),
    logsBloom: receipt.logsBloom,
    logs: receipt.logs.map((log) => ({
      address: log.address,
      topics: [...log.topics],
      data: log.data,
      index: log.index,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      transactionHash: log.transactionHash,
      transactionIndex: log.transactionIndex,
    })),
  };
}

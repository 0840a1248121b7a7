/** A log as a node's JSON-RPC gives it (`eth_getLogs`, a receipt's `logs`): quantities are hex. */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

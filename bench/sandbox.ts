/**
 * The sandbox's cold start (both chains up, contracts deployed, accounts funded: `startSandbox`
 * resolving) and the reforge latency from a mined burn to the mint observed on the destination
 * chain. Targets: under 3 s and under 2 s.
 */
import { Contract, parseUnits, Transaction, Wallet, type TransactionReceipt } from 'ethers';
import { chainProvider, waitForReceipt } from '../sandbox/chains/provider.ts';
import { startSandbox } from '../sandbox/server.ts';
import { REFORGE_TOKEN_ABI } from '../schemas/reforge.ts';
import { median, ms, percentile } from './stats.ts';

const STARTS = 5;
const TRANSFERS = 20;
/** anvil's first default account: funded with every stablecoin on every chain. */
const SENDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export default async function benchSandbox(): Promise<void> {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const sandbox = await startSandbox();
    starts.push(performance.now() - started);
    await sandbox.stop();
  }
  console.log(
    `sandbox cold start (2 chains up, 8 tokens deployed, 10 accounts funded): median ${ms(median(starts))}, max ${ms(Math.max(...starts))} over ${STARTS} starts (target < 3000 ms)`,
  );

  const sandbox = await startSandbox();
  const [one, two] = sandbox.chains as [(typeof sandbox.chains)[0], (typeof sandbox.chains)[0]];
  const source = chainProvider(one.rpcUrl, one.chainId);
  const destination = chainProvider(two.rpcUrl, two.chainId);
  try {
    const sender = new Wallet(SENDER_KEY, source);
    const arriving = new Contract(two.tokens.eUSD.address, REFORGE_TOKEN_ABI, destination);
    const latencies: number[] = [];
    for (let i = 0; i < TRANSFERS; i++) {
      const response = await fetch(`${sandbox.reforge}/prepareReforge`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          sourceAmount: '1.25',
          sourceToken: one.tokens.eUSD.address,
          destinationToken: two.tokens.eUSD.address,
          destinationChainId: two.chainId,
        }),
      });
      const tx = Transaction.from(((await response.json()) as { tx: string }).tx);
      const before = (await arriving.balanceOf!(sender.address)) as bigint;
      const sent = await sender.sendTransaction({
        to: tx.to,
        data: tx.data,
        value: tx.value,
        gasLimit: tx.gasLimit,
        chainId: tx.chainId,
      });
      const receipt: TransactionReceipt = await waitForReceipt(source, sent.hash, 10_000);
      const burnMined = performance.now();
      if (receipt.status !== 1) throw new Error(`burn ${sent.hash} reverted`);
      while (((await arriving.balanceOf!(sender.address)) as bigint) !== before + parseUnits('1.25', 18)) {
        if (performance.now() - burnMined > 10_000) throw new Error('the mint did not arrive within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      latencies.push(performance.now() - burnMined);
    }
    console.log(
      `reforge burn mined -> mint seen on the destination chain: median ${ms(median(latencies))}, p95 ${ms(percentile(latencies, 95))} over ${TRANSFERS} transfers (target < 2000 ms)`,
    );
  } finally {
    source.destroy();
    destination.destroy();
    await sandbox.stop();
  }
}

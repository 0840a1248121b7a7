// The wallet panel's follower against real anvil chains: a burn sent with an anvil account is
// followed to its receipt; a follower stopped while a read is in flight reports nothing afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type TransactionResponse } from 'ethers';
import { LocalChains, type LocalChain } from '../../sandbox/chains/local-chains.ts';
import { ChainRpc, type RpcReceipt } from '../../widget/bridge/chain-rpc.ts';
import type { BridgeStage } from '../../widget/bridge/errors.ts';
import { DEFAULT_TIMEOUTS, followToReceipt, type Mined } from '../../widget/bridge/transfer-follower.ts';
import type { TransferRecord } from '../../widget/bridge/transfer-store.ts';
import { anvilAccount, token } from '../support/chains.ts';

describe('wallet panel: following a transfer to its receipt', () => {
  let chains: LocalChains;
  let one: LocalChain;
  let two: LocalChain;

  before(async () => {
    chains = await LocalChains.start();
    [one, two] = chains.chains as [LocalChain, LocalChain];
  });
  after(() => chains.stop());

  /** Sends a burn of 1 eUSD from anvil account `account` on chain one, and the record the panel keeps of it. */
  async function sendBurn(account: number): Promise<TransferRecord> {
    const signer = anvilAccount(account, one.provider);
    const units = parseUnits('1', 18);
    const [nonceBefore, sourceBlock, destinationBlock] = await Promise.all([
      one.provider.getTransactionCount(signer.address),
      one.provider.getBlockNumber(),
      two.provider.getBlockNumber(),
    ]);
    const sent = (await token(one, 'eUSD', signer).getFunction('reforge')(
      units,
      two.chainId,
      two.tokens.eUSD.address,
    )) as TransactionResponse;
    return {
      v: 1,
      hash: sent.hash,
      from: signer.address,
      sourceChainId: one.chainId,
      destinationChainId: two.chainId,
      symbol: 'eUSD',
      amount: '1',
      units: units.toString(),
      sourceToken: one.tokens.eUSD.address,
      destinationToken: two.tokens.eUSD.address,
      to: sent.to!,
      data: sent.data,
      nonceBefore: String(nonceBefore),
      sourceBlock: String(sourceBlock),
      destinationBlock: String(destinationBlock),
      destinationBalance: '0',
      sentAt: Date.now(),
    };
  }

  it('finds the receipt and the burn id of the ReforgeBurn log, and says so once', async () => {
    const record = await sendBurn(4);
    const mined: Mined[] = [];
    const result = await followToReceipt(
      record,
      new ChainRpc(one),
      DEFAULT_TIMEOUTS,
      { onRepriced: () => assert.fail('not repriced'), onMined: (found) => mined.push(found) },
      new AbortController().signal,
    );
    const receipt = await one.provider.getTransactionReceipt(record.hash);
    assert.equal(result.hash, record.hash);
    assert.equal(result.blockNumber, receipt!.blockNumber);
    assert.match(result.burnId, /^0x[0-9a-f]{64}$/);
    assert.deepEqual(mined, [result]);
  });

  it('stopped while the receipt read is in flight: it rejects with the abort and reports nothing', async () => {
    const record = await sendBurn(5);
    const stop = new AbortController();
    // The receipt arrives, but the follower was stopped in the meantime (the panel left the page).
    class StoppedDuringRead extends ChainRpc {
      override async receipt(hash: string, stage: BridgeStage): Promise<RpcReceipt | null> {
        const found = await super.receipt(hash, stage);
        stop.abort(new DOMException('The panel left the page', 'AbortError'));
        return found;
      }
    }
    const reported: string[] = [];
    await assert.rejects(
      followToReceipt(
        record,
        new StoppedDuringRead(one),
        DEFAULT_TIMEOUTS,
        { onRepriced: () => reported.push('repriced'), onMined: () => reported.push('mined') },
        stop.signal,
      ),
      { name: 'AbortError' },
    );
    assert.ok(await one.provider.getTransactionReceipt(record.hash), 'the burn itself was mined');
    assert.deepEqual(reported, []);
  });
});

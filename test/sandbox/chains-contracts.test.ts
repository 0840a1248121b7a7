import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Fragment, getCreateAddress, Interface, parseUnits, Wallet, type ContractTransactionResponse } from 'ethers';
import { LocalChains } from '../../sandbox/chains/local-chains.ts';
import { decodeRevert } from '../../sandbox/chains/revert.ts';
import { OPENING_BALANCE, RELAYER_PRIVATE_KEY, TOKEN_NAMES } from '../../sandbox/chains/stablecoins.ts';
import { artefactPath, compileArtefact, CONTRACTS } from '../../sandbox/contracts/compile.ts';
import { STABLECOIN_ARTEFACT } from '../../sandbox/contracts/stablecoin-artefact.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { STABLECOINS } from '../../schemas/orders.ts';
import { chainListSchema, REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { http } from '../support/http.ts';

const RELAYER = new Wallet(RELAYER_PRIVATE_KEY).address;

describe('sandbox chains: the stablecoin contract', () => {
  it('the committed artefacts are exactly what the sources compile to (npm run contracts)', () => {
    for (const name of CONTRACTS)
      assert.equal(
        compileArtefact(name),
        readFileSync(artefactPath(name), 'utf8'),
        `the ${name} artefact is stale: run npm run contracts and commit the result`,
      );
  });

  it('REFORGE_TOKEN_ABI describes the compiled contract: every entry is in the artefact', () => {
    // "full" includes parameter names, indexed flags, mutability and return types.
    const compiled = new Set(
      new Interface(STABLECOIN_ARTEFACT.abi as never).fragments
        .filter((fragment) => fragment.type !== 'constructor')
        .map((fragment) => fragment.format('full')),
    );
    for (const entry of REFORGE_TOKEN_ABI) {
      const fragment = Fragment.from(entry);
      assert.ok(compiled.has(fragment.format('full')), `${fragment.format('full')} is not in the compiled ABI`);
    }
  });

  it('refuses a chain configuration with a repeated chain id, before starting anything', async () => {
    await assert.rejects(
      LocalChains.start([
        { name: 'A', chainId: 5 },
        { name: 'B', chainId: 5 },
      ]),
      /chainId 5 is configured twice/,
    );
    await assert.rejects(LocalChains.start([{ name: 'A', chainId: 0 }]), /positive integer/);
  });
});

describe('sandbox chains: three chains, one of them a main network', () => {
  let sandbox: Sandbox;
  let providers: ReturnType<typeof chainProviders>;

  before(async () => {
    sandbox = await startSandbox({
      chains: [
        { name: 'Kassa Local One', chainId: 31337 },
        { name: 'Kassa Local Two', chainId: 31338, network: 'test' },
        { name: 'Kassa Main', chainId: 31339, network: 'main' },
      ],
    });
    providers = chainProviders(sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
    for (const chain of sandbox.chains) {
      await assert.rejects(
        fetch(chain.rpcUrl, { method: 'POST', body: '{}' }),
        `chain ${chain.chainId} is stopped with the sandbox`,
      );
    }
  });

  it('deploys the four stablecoins on every chain at fixed addresses that differ from chain to chain', async () => {
    const all = new Set<string>();
    for (const [index, chain] of sandbox.chains.entries()) {
      for (const [offset, symbol] of STABLECOINS.entries()) {
        const info = chain.tokens[symbol];
        assert.equal(
          info.address,
          getCreateAddress({ from: RELAYER, nonce: index * 16 + offset }),
          'the same address on every run',
        );
        all.add(info.address);
        const contract = token(chain, symbol, providers.get(chain.chainId));
        assert.deepEqual(
          [
            await contract.name!(),
            await contract.symbol!(),
            Number(await contract.decimals!()),
            await contract.relayer!(),
          ],
          [TOKEN_NAMES[symbol], symbol, 18, RELAYER],
        );
        assert.deepEqual(info, { address: info.address, decimals: 18, symbol, name: TOKEN_NAMES[symbol] });
      }
    }
    assert.equal(all.size, sandbox.chains.length * STABLECOINS.length, 'a token address names one chain');
  });

  it('funds the ten default accounts with 1,000,000 of each stablecoin and native gas on every chain', async () => {
    for (const chain of sandbox.chains) {
      const provider = providers.get(chain.chainId);
      const accounts = (await provider.send('eth_accounts', [])) as string[];
      assert.equal(accounts.length, 10);
      for (const symbol of STABLECOINS) {
        const contract = token(chain, symbol, provider);
        const balances = await Promise.all(accounts.map((account) => contract.balanceOf!(account) as Promise<bigint>));
        assert.deepEqual(
          balances,
          accounts.map(() => parseUnits(OPENING_BALANCE, 18)),
          `${symbol} on ${chain.chainId}`,
        );
      }
      assert.ok((await provider.getBalance(accounts[9]!)) > parseUnits('1000', 18));
    }
  });

  it('lists main networks on getChainsAndTokens and test networks on getTestChainsAndTokens', async () => {
    const main = chainListSchema.parse((await http(`${sandbox.reforge}/getChainsAndTokens`)).body);
    const test = chainListSchema.parse((await http(`${sandbox.reforge}/getTestChainsAndTokens`)).body);
    assert.deepEqual(
      main.map((chain) => [chain.name, chain.chainId]),
      [['Kassa Main', 31339]],
    );
    assert.deepEqual(
      test.map((chain) => [chain.name, chain.chainId]),
      [
        ['Kassa Local One', 31337],
        ['Kassa Local Two', 31338],
      ],
    );
    assert.deepEqual(main[0]!.tokens, sandbox.chains[2]!.tokens);
    assert.equal(main[0]!.rpcUrl, sandbox.chains[2]!.rpcUrl);
  });

  it('does not prepare a transfer between a test and a main network', async () => {
    const [one, , mainChain] = sandbox.chains;
    const response = await http(`${sandbox.reforge}/prepareReforge`, {
      body: {
        sourceAmount: '1',
        sourceToken: one!.tokens.eUSD.address,
        destinationToken: mainChain!.tokens.eUSD.address,
        destinationChainId: 31339,
      },
    });
    assert.equal(response.status, 400);
    assert.equal(
      response.body.error,
      'destinationChainId 31339 is a main network but the source chain is a test network',
    );
  });

  it('reverts a zero burn and a burn to its own chain; only the relayer mints, once per burn id', async () => {
    const chain = sandbox.chains[0]!;
    const provider = providers.get(chain.chainId);
    const holder = token(chain, 'eEUR', anvilAccount(3, provider));
    const other = sandbox.chains[1]!.tokens.eEUR.address;
    const revertOf = async (call: Promise<unknown>) => {
      try {
        await call;
      } catch (error) {
        return decodeRevert(error)?.name;
      }
      assert.fail('expected a revert');
    };
    assert.equal(await revertOf(holder.reforge!(0n, 31338, other)), 'ZeroAmount');
    assert.equal(await revertOf(holder.reforge!(1n, 31337, other)), 'SameChain');
    assert.equal(
      await revertOf(holder.reforgeMint!(anvilAccount(3).address, 1n, `0x${'11'.repeat(32)}`)),
      'NotRelayer',
    );

    // The relayer key itself, minting under a burn id it has never seen, then again under the same id.
    const asRelayer = token(chain, 'eEUR', new Wallet(RELAYER_PRIVATE_KEY, provider));
    const burnId = `0x${'22'.repeat(32)}`;
    const first = (await asRelayer.reforgeMint!(anvilAccount(4).address, 5n, burnId)) as ContractTransactionResponse;
    await waitUntil(
      () => provider.getTransactionReceipt(first.hash),
      (receipt) => receipt?.status === 1,
      'first mint',
    );
    assert.equal(await asRelayer.settled!(burnId), true);
    assert.equal(await revertOf(asRelayer.reforgeMint!(anvilAccount(4).address, 5n, burnId)), 'AlreadySettled');
  });

  it('refunds a burn aimed at another network on its own chain', async () => {
    const [one, , mainChain] = sandbox.chains;
    const provider = providers.get(31337);
    const account = anvilAccount(5, provider);
    const holder = token(one!, 'eSGD', account);
    const before = (await holder.balanceOf!(account.address)) as bigint;
    await (await holder.reforge!(parseUnits('3', 18), 31339, mainChain!.tokens.eSGD.address)).wait();
    assert.equal(await holder.balanceOf!(account.address), before - parseUnits('3', 18));
    await waitUntil(
      () => holder.balanceOf!(account.address) as Promise<bigint>,
      (balance) => balance === before,
      'refund',
    );
    assert.equal(
      await token(mainChain!, 'eSGD', providers.get(31339)).balanceOf!(account.address),
      parseUnits(OPENING_BALANCE, 18),
      'nothing arrives on the main network',
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseUnits, Transaction, Wallet, type TransactionReceipt } from 'ethers';
import { TOKEN_INTERFACE } from '../../sandbox/chains/token-interface.ts';
import { startSandbox, type Sandbox, type SandboxChain } from '../../sandbox/server.ts';
import {
  chainListSchema,
  executeReforgeAsyncResponseSchema,
  executeReforgeResponseSchema,
  prepareReforgeResponseSchema,
  reforgeErrorSchema,
} from '../../schemas/reforge.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { http } from '../support/http.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

describe('sandbox: the reforge service', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let providers: ReturnType<typeof chainProviders>;
  let one: SandboxChain;
  let two: SandboxChain;

  const api = (path: string, body?: unknown) => http(`${sandbox.reforge}${path}`, body === undefined ? {} : { body });
  const transfer = (overrides: Record<string, unknown> = {}) => ({
    sourceAmount: '12.5',
    sourceToken: one.tokens.eUSD.address,
    destinationToken: two.tokens.eUSD.address,
    destinationChainId: two.chainId,
    ...overrides,
  });
  const prepare = async (overrides: Record<string, unknown> = {}) => {
    const response = await api('/prepareReforge', transfer(overrides));
    assert.equal(response.status, 200, response.text);
    return prepareReforgeResponseSchema.parse(response.body).tx;
  };
  const balance = (chain: SandboxChain, address: string, symbol: 'eUSD' | 'eEUR' = 'eUSD') =>
    token(chain, symbol, providers.get(chain.chainId)).balanceOf!(address) as Promise<bigint>;
  const arrival = (chain: SandboxChain, address: string, expected: bigint) =>
    waitUntil(
      () => balance(chain, address),
      (value) => value === expected,
      'tokens arrive on the destination chain',
    );

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
    providers = chainProviders(sandbox.chains);
    [one, two] = sandbox.chains as [SandboxChain, SandboxChain];
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
  });

  it('lists the two test chains with RPC URLs and tokens; no main networks unless configured', async () => {
    const test = chainListSchema.parse((await api('/getTestChainsAndTokens')).body);
    assert.deepEqual(
      test.map(({ name, chainId, rpcUrl }) => ({ name, chainId, rpcUrl })),
      [
        { name: 'Kassa Local One', chainId: 31337, rpcUrl: one.rpcUrl },
        { name: 'Kassa Local Two', chainId: 31338, rpcUrl: two.rpcUrl },
      ],
    );
    assert.deepEqual(test[0]!.nativeCurrency, { name: 'Ether', symbol: 'ETH', decimals: 18 });
    assert.deepEqual(Object.keys(test[0]!.tokens), ['eUSD', 'eEUR', 'eGBR', 'eSGD']);
    assert.deepEqual(test[1]!.tokens, two.tokens);
    assert.deepEqual((await api('/getChainsAndTokens')).body, []);
  });

  it('prepares an unsigned EIP-1559 burn that a local wallet signs and sends; the tokens arrive on the destination chain', async () => {
    const account = anvilAccount(1, providers.get(one.chainId));
    const [sourceBefore, destinationBefore] = await Promise.all([
      balance(one, account.address),
      balance(two, account.address),
    ]);
    const serialized = await prepare();
    const tx = Transaction.from(serialized);
    assert.equal(tx.type, 2);
    assert.equal(tx.chainId, BigInt(one.chainId));
    assert.equal(tx.to, one.tokens.eUSD.address);
    assert.equal(tx.value, 0n);
    assert.equal(tx.nonce, 0);
    assert.equal(tx.signature, null, 'unsigned');
    assert.ok(tx.gasLimit > 50_000n && tx.gasLimit < 200_000n, `gasLimit ${tx.gasLimit}`);
    assert.ok(tx.maxFeePerGas! > 0n && tx.maxPriorityFeePerGas! > 0n);
    const call = TOKEN_INTERFACE.parseTransaction({ data: tx.data })!;
    assert.equal(call.name, 'reforge');
    assert.deepEqual([...call.args], [parseUnits('12.5', 18), 31338n, two.tokens.eUSD.address]);

    // What a wallet does with it: its own nonce, the prepared to/data/value/gas/chainId.
    const sent = await account.sendTransaction({
      to: tx.to,
      data: tx.data,
      value: tx.value,
      gasLimit: tx.gasLimit,
      chainId: tx.chainId,
    });
    const receipt = (await sent.wait()) as TransactionReceipt;
    assert.equal(receipt.status, 1);
    assert.equal(
      await balance(one, account.address),
      sourceBefore - parseUnits('12.5', 18),
      'burned on the source chain',
    );
    const burn = receipt.logs
      .map((log) => TOKEN_INTERFACE.parseLog(log))
      .find((event) => event?.name === 'ReforgeBurn')!;
    // How soon it arrives is npm run bench's figure (burn mined -> mint seen); here, that it does, once.
    await arrival(two, account.address, destinationBefore + parseUnits('12.5', 18));
    const arriving = token(two, 'eUSD', providers.get(two.chainId));
    const mints = await arriving.queryFilter(arriving.filters.ReforgeMint!(account.address));
    assert.deepEqual(
      mints.map((event) => TOKEN_INTERFACE.parseLog(event)!.args.toArray()),
      [[account.address, parseUnits('12.5', 18), burn.args.burnId]],
    );
  });

  it('accepts the amount as a JSON number, the chain id as a string, and the source chain by its RPC URL', async () => {
    const tx = Transaction.from(
      await prepare({ sourceAmount: 0.25, destinationChainId: '31338', sourceRpcUrl: `${one.rpcUrl}/` }),
    );
    assert.deepEqual(
      [...TOKEN_INTERFACE.parseTransaction({ data: tx.data })!.args],
      [parseUnits('0.25', 18), 31338n, two.tokens.eUSD.address],
    );
    const smallest = Transaction.from(
      await prepare({
        sourceAmount: '0.000000000000000001',
        sourceToken: two.tokens.eEUR.address,
        destinationToken: one.tokens.eEUR.address,
        destinationChainId: 31337,
      }),
    );
    assert.equal(smallest.chainId, 31338n);
    assert.equal(TOKEN_INTERFACE.parseTransaction({ data: smallest.data })!.args[0], 1n);
  });

  // Messages that name a token address are functions: the addresses are known once the sandbox runs.
  const invalid: Array<[string, () => Record<string, unknown>, string | RegExp | (() => string)]> = [
    ['a missing amount', () => ({ sourceAmount: undefined }), 'sourceAmount is required'],
    ['a zero amount', () => ({ sourceAmount: '0' }), /sourceAmount must be a positive decimal/],
    ['a negative amount', () => ({ sourceAmount: -5 }), /sourceAmount must be a positive decimal/],
    ['an amount with an exponent', () => ({ sourceAmount: '1e3' }), /sourceAmount must be a positive decimal/],
    ['an amount that is not a number', () => ({ sourceAmount: 'ten' }), /sourceAmount must be a positive decimal/],
    ['an amount of the wrong type', () => ({ sourceAmount: true }), 'sourceAmount must be a decimal string or number'],
    [
      'more decimals than the token has',
      () => ({ sourceAmount: '0.0000000000000000001' }),
      "sourceAmount has more decimal places than eUSD's 18",
    ],
    ['an amount beyond uint256', () => ({ sourceAmount: '9'.repeat(80) }), 'sourceAmount is too large'],
    ['a missing sourceToken', () => ({ sourceToken: undefined }), 'sourceToken is required'],
    ['a sourceToken that is not an address', () => ({ sourceToken: '0x1234' }), /Invalid sourceToken/],
    [
      'an unknown sourceToken',
      () => ({ sourceToken: Wallet.createRandom().address }),
      /^Unknown sourceToken: 0x[0-9a-fA-F]{40} is not a token on any supported chain \(31337, 31338\)$/,
    ],
    ['a missing destinationToken', () => ({ destinationToken: undefined }), 'destinationToken is required'],
    ['a missing destinationChainId', () => ({ destinationChainId: undefined }), 'destinationChainId is required'],
    [
      'a fractional destinationChainId',
      () => ({ destinationChainId: 1.5 }),
      'destinationChainId must be a positive integer',
    ],
    [
      'a destinationChainId with letters',
      () => ({ destinationChainId: '0x7a6a' }),
      'destinationChainId must be a positive integer',
    ],
    [
      'an unsupported destinationChainId',
      () => ({ destinationChainId: 1 }),
      'Unsupported destinationChainId: 1 (supported: 31337, 31338)',
    ],
    [
      'the same chain',
      () => ({ destinationChainId: 31337, destinationToken: one.tokens.eUSD.address }),
      'destinationChainId 31337 is the source chain: reforge moves tokens to another chain',
    ],
    [
      'a destinationToken not on the destination chain',
      () => ({ destinationToken: one.tokens.eUSD.address }),
      () => `destinationToken ${one.tokens.eUSD.address} is not a token on chain 31338`,
    ],
    [
      'a destinationToken of another stablecoin',
      () => ({ destinationToken: two.tokens.eEUR.address }),
      'destinationToken is eEUR but sourceToken is eUSD: reforge burns and mints the same stablecoin',
    ],
    [
      'a sourceRpcUrl of no supported chain',
      () => ({ sourceRpcUrl: 'http://127.0.0.1:1/' }),
      "sourceRpcUrl is not the RPC URL of a supported chain (the listings give each chain's rpcUrl)",
    ],
    [
      'a sourceRpcUrl that is not a URL',
      () => ({ sourceRpcUrl: 'not a url' }),
      /sourceRpcUrl is not the RPC URL of a supported chain/,
    ],
    [
      'a sourceRpcUrl of another chain',
      () => ({ sourceRpcUrl: two.rpcUrl }),
      () => `sourceToken ${one.tokens.eUSD.address} is on chain 31337, not on chain 31338 of sourceRpcUrl`,
    ],
    ['an unknown field', () => ({ slippage: 1 }), 'Unknown field: slippage'],
  ];
  for (const [what, overrides, message] of invalid) {
    it(`refuses to prepare with ${what}: 400 {error}`, async () => {
      const response = await api('/prepareReforge', transfer(overrides()));
      assert.equal(response.status, 400, response.text);
      const { error } = reforgeErrorSchema.strict().parse(response.body);
      if (message instanceof RegExp) assert.match(error, message);
      else assert.equal(error, typeof message === 'function' ? message() : message);
    });
  }

  it('refuses prepare bodies that are not a JSON object', async () => {
    assert.equal(
      (await http(`${sandbox.reforge}/prepareReforge`, { raw: '{', headers: { 'Content-Type': 'application/json' } }))
        .body.error,
      'Request body must be valid JSON',
    );
    assert.equal((await api('/prepareReforge', [1])).body.error, 'Request body must be a JSON object');
    assert.equal(
      (await http(`${sandbox.reforge}/prepareReforge`, { method: 'POST' })).body.error,
      'sourceAmount is required',
    );
  });

  it('executeReforge signs and broadcasts with the sent key, answering the transaction response', async () => {
    const account = anvilAccount(2);
    const before = await balance(two, account.address);
    const response = await api('/executeReforge', {
      tx: await prepare({ sourceAmount: '3' }),
      walletData: { rpcUrl: one.rpcUrl, privateKey: account.privateKey },
    });
    assert.equal(response.status, 200, response.text);
    const { tx } = executeReforgeResponseSchema.parse(response.body);
    assert.equal(tx.from, account.address);
    assert.equal(tx.to, one.tokens.eUSD.address);
    assert.equal(tx.chainId, 31337);
    assert.equal(tx.value, '0');
    assert.equal(
      tx.nonce,
      (await providers.get(one.chainId).getTransactionCount(account.address)) - 1,
      "the account's own nonce",
    );
    assert.ok(!response.text.includes(account.privateKey.slice(2)), 'the key is not echoed');
    await arrival(two, account.address, before + parseUnits('3', 18));
  });

  it('executeReforgeAsync answers once mined, with the receipt and its ReforgeBurn log', async () => {
    const account = anvilAccount(2);
    const before = await balance(one, account.address);
    const response = await api('/executeReforgeAsync', {
      tx: await prepare({ sourceAmount: '4' }),
      walletData: { rpcUrl: one.rpcUrl, privateKey: account.privateKey.slice(2) },
    });
    assert.equal(response.status, 200, response.text);
    const { receipt } = executeReforgeAsyncResponseSchema.parse(response.body);
    assert.equal(receipt.status, 1);
    assert.equal(receipt.from, account.address);
    assert.ok(receipt.blockNumber > 0 && BigInt(receipt.gasUsed) > 0n);
    assert.equal(await balance(one, account.address), before - parseUnits('4', 18), 'mined: already burned');
    const events = receipt.logs.map((log) => TOKEN_INTERFACE.parseLog(log)?.name);
    assert.deepEqual(events, ['Transfer', 'ReforgeBurn']);
  });

  it('keeps concurrent executions of one key apart (no nonce reuse)', async () => {
    const account = anvilAccount(8);
    const before = await balance(two, account.address);
    const txs = await Promise.all([1, 2, 3].map((n) => prepare({ sourceAmount: String(n) })));
    const responses = await Promise.all(
      txs.map((tx) =>
        api('/executeReforge', { tx, walletData: { rpcUrl: one.rpcUrl, privateKey: account.privateKey } }),
      ),
    );
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 200, 200],
      responses.map((response) => response.text).join('\n'),
    );
    assert.deepEqual(new Set(responses.map((response) => response.body.tx.nonce)).size, 3);
    await arrival(two, account.address, before + parseUnits('6', 18));
  });

  const executeErrors: Array<[string, () => Promise<Record<string, unknown>>, string | RegExp]> = [
    ['a missing tx', async () => ({ tx: undefined }), 'tx is required'],
    ['a tx that is not hex', async () => ({ tx: 'hello' }), 'tx must be 0x-prefixed hex bytes'],
    ['a tx that does not decode', async () => ({ tx: '0x02c0ffee' }), /^Invalid tx: not a serialized transaction/],
    [
      'a signed tx',
      async () => ({ tx: await anvilAccount(2).signTransaction(Transaction.from(await prepare())) }),
      /^Invalid tx: it is already signed/,
    ],
    [
      'a tx that is not a reforge burn',
      async () => ({
        tx: Transaction.from({
          ...Transaction.from(await prepare()).toJSON(),
          data: TOKEN_INTERFACE.encodeFunctionData('transfer', [anvilAccount(3).address, 1n]),
        }).unsignedSerialized,
      }),
      'Invalid tx: not a reforge burn on a stablecoin of chain 31337 (prepare it with prepareReforge)',
    ],
    [
      'a tx for an unsupported chain',
      async () => ({
        tx: Transaction.from({ ...Transaction.from(await prepare()).toJSON(), chainId: 5 }).unsignedSerialized,
      }),
      'Invalid tx: chain 5 is not supported (supported: 31337, 31338)',
    ],
    ['a missing walletData', async () => ({ walletData: undefined }), 'walletData is required'],
    [
      'an rpcUrl of another chain',
      async () => ({ walletData: { rpcUrl: two.rpcUrl, privateKey: anvilAccount(2).privateKey } }),
      'walletData.rpcUrl is the RPC URL of chain 31338, but tx is for chain 31337',
    ],
    [
      'an rpcUrl of no supported chain',
      async () => ({ walletData: { rpcUrl: 'https://rpc.example', privateKey: anvilAccount(2).privateKey } }),
      /^walletData.rpcUrl is not the RPC URL of a supported chain/,
    ],
    [
      'a missing private key',
      async () => ({ walletData: { rpcUrl: one.rpcUrl } }),
      'walletData.privateKey is required',
    ],
    [
      'a signer without a private key',
      async () => ({ walletData: { rpcUrl: one.rpcUrl, signer: { provider: {} } } }),
      /^walletData.signer cannot sign over HTTP/,
    ],
    [
      'a private key that is not 32 bytes of hex',
      async () => ({ walletData: { rpcUrl: one.rpcUrl, privateKey: 'secret-0123' } }),
      'walletData.privateKey must be 32 bytes of hex (64 hex digits, 0x optional)',
    ],
    [
      'a private key off the curve',
      async () => ({ walletData: { rpcUrl: one.rpcUrl, privateKey: `0x${'ff'.repeat(32)}` } }),
      'walletData.privateKey is not a valid secp256k1 private key',
    ],
    [
      'a key whose account holds no tokens',
      async () => ({ walletData: { rpcUrl: one.rpcUrl, privateKey: Wallet.createRandom().privateKey } }),
      /^The transaction would fail: execution reverted: ERC20InsufficientBalance\(sender=0x[0-9a-fA-F]{40}, balance=0, needed=12500000000000000000\)$/,
    ],
    [
      'an unknown walletData field',
      async () => ({ walletData: { rpcUrl: one.rpcUrl, privateKey: anvilAccount(2).privateKey, mnemonic: 'x' } }),
      'Unknown field: walletData.mnemonic',
    ],
  ];
  for (const [what, overrides, message] of executeErrors) {
    it(`refuses to execute ${what}: 400 {error} on both forms`, async () => {
      const body = {
        tx: await prepare(),
        walletData: { rpcUrl: one.rpcUrl, privateKey: anvilAccount(2).privateKey },
        ...(await overrides()),
      };
      for (const path of ['/executeReforge', '/executeReforgeAsync']) {
        const response = await api(path, body);
        assert.equal(response.status, 400, `${path}: ${response.text}`);
        const { error } = reforgeErrorSchema.strict().parse(response.body);
        if (typeof message === 'string') assert.equal(error, message);
        else assert.match(error, message);
      }
    });
  }

  it('refuses to execute for an account with tokens but no gas money, saying so', async () => {
    const poor = Wallet.createRandom();
    const holder = anvilAccount(9, providers.get(one.chainId));
    await (await token(one, 'eUSD', holder).transfer!(poor.address, parseUnits('20', 18))).wait();
    const response = await api('/executeReforge', {
      tx: await prepare(),
      walletData: { rpcUrl: one.rpcUrl, privateKey: poor.privateKey },
    });
    assert.equal(response.status, 400);
    assert.match(response.body.error, /insufficient funds/);
    assert.ok(!response.text.includes(poor.privateKey.slice(2)));
  });

  it('applies injected faults to the reforge service only', async () => {
    await client.control('/faults', { service: 'reforge', kind: '500', path: '/prepareReforge' });
    const failed = await api('/prepareReforge', transfer());
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { error: 'Internal server error' });
    await client.control('/faults', { service: 'reforge', kind: '429', times: 2 });
    assert.equal((await api('/getTestChainsAndTokens')).status, 429);
    const limited = await api('/getChainsAndTokens');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '1');
    await client.control('/faults', { service: 'reforge', kind: 'malformed' });
    const malformed = await api('/getTestChainsAndTokens');
    assert.throws(() => JSON.parse(malformed.text));
    assert.equal((await client.orders('orders')).status, 200, 'other services are unaffected');
    assert.equal((await api('/prepareReforge', transfer())).status, 200, 'and it recovers');
  });

  it('counts requests per operation in the metrics', async () => {
    await client.control('/metrics', undefined, 'DELETE');
    await api('/getChainsAndTokens');
    await api('/getTestChainsAndTokens');
    await api('/prepareReforge', {});
    await api('/executeReforge', {});
    await api('/executeReforgeAsync', {});
    await api('/executeReforgeAsync', {});
    assert.deepEqual((await client.control('/metrics')).body, {
      'reforge.chains': 1,
      'reforge.testChains': 1,
      'reforge.prepare': 1,
      'reforge.execute': 1,
      'reforge.executeAsync': 2,
    });
  });
});

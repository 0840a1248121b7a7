/**
 * The sandbox's block explorer pages: the chain listing links them, a transfer's burn and its mint
 * show with their status, block, addresses and the stablecoins moved, as the chain's node says; an
 * address shows its balances; anything else is a plain 404 page that never echoes markup back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Transaction, type TransactionReceipt } from 'ethers';
import { TOKEN_INTERFACE } from '../../sandbox/chains/token-interface.ts';
import { startSandbox, type Sandbox, type SandboxChain } from '../../sandbox/server.ts';
import { chainListSchema, prepareReforgeResponseSchema } from '../../schemas/reforge.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { http } from '../support/http.ts';

/** The page's text, tags dropped, whitespace folded. */
const words = (page: string) =>
  page
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('sandbox: the block explorer pages', () => {
  let sandbox: Sandbox;
  let providers: ReturnType<typeof chainProviders>;
  let one: SandboxChain;
  let two: SandboxChain;
  let burn: TransactionReceipt;
  let mintHash: string;
  const account = () => anvilAccount(6, providers.get(one.chainId));

  before(async () => {
    sandbox = await startSandbox();
    providers = chainProviders(sandbox.chains);
    [one, two] = sandbox.chains as [SandboxChain, SandboxChain];
    const prepared = await http(`${sandbox.reforge}/prepareReforge`, {
      body: {
        sourceAmount: '3.25',
        sourceToken: one.tokens.eUSD.address,
        destinationToken: two.tokens.eUSD.address,
        destinationChainId: two.chainId,
      },
    });
    const tx = Transaction.from(prepareReforgeResponseSchema.parse(prepared.body).tx);
    const sent = await account().sendTransaction({ to: tx.to, data: tx.data, gasLimit: tx.gasLimit });
    burn = (await sent.wait())!;
    const burnId = burn.logs.map((log) => TOKEN_INTERFACE.parseLog(log)).find((e) => e?.name === 'ReforgeBurn')!.args
      .burnId as string;
    const arriving = token(two, 'eUSD', providers.get(two.chainId));
    const [mint] = await waitUntil(
      () => arriving.queryFilter(arriving.filters.ReforgeMint!(null, null, burnId)),
      (found) => found.length === 1,
      'the mint',
    );
    mintHash = mint!.transactionHash;
  });
  after(async () => {
    providers?.destroy();
    await sandbox?.stop();
  });

  it('the chain listing carries each chain’s explorer', async () => {
    const listed = chainListSchema.parse((await http(`${sandbox.reforge}/getTestChainsAndTokens`)).body);
    assert.deepEqual(
      listed.map((chain) => chain.blockExplorerUrl),
      [`${sandbox.origin}/explorer/31337`, `${sandbox.origin}/explorer/31338`],
    );
  });

  it('the burn’s page: success, its block, from the account to the token, the tokens burned', async () => {
    const page = await http(`${sandbox.origin}/explorer/${one.chainId}/tx/${burn.hash}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
    const text = words(page.text);
    assert.match(text, new RegExp(`Kassa Local One \\(chain 31337\\)`));
    assert.match(text, new RegExp(`Hash ${burn.hash} Status Success Block ${burn.blockNumber} `));
    assert.match(text, new RegExp(`From ${account().address} To ${one.tokens.eUSD.address}`));
    assert.match(text, /Tokens moved Burned 3\.25 eUSD/);
    assert.ok(page.text.includes(`href="/explorer/31337/address/${account().address}"`));
  });

  it('the mint’s page on the destination chain: success, from the relayer, the tokens minted', async () => {
    const mint = (await providers.get(two.chainId).getTransactionReceipt(mintHash))!;
    const page = await http(`${sandbox.origin}/explorer/${two.chainId}/tx/${mintHash}`);
    assert.equal(page.status, 200);
    const text = words(page.text);
    assert.match(text, new RegExp(`Hash ${mintHash} Status Success Block ${mint.blockNumber} `));
    assert.match(text, new RegExp(`From ${mint.from} To ${two.tokens.eUSD.address}`));
    assert.match(text, /Tokens moved Minted 3\.25 eUSD/);
  });

  it('an address’s page shows its balances, as the chain has them', async () => {
    const address = account().address;
    const page = await http(`${sandbox.origin}/explorer/${two.chainId}/address/${address.toLowerCase()}`);
    assert.equal(page.status, 200);
    const units = (await token(two, 'eUSD', providers.get(two.chainId)).getFunction('balanceOf')(address)) as bigint;
    const shown = /data-symbol="eUSD">([^<]+)</.exec(page.text)![1];
    assert.equal(shown, (Number(units / 10n ** 16n) / 100).toString());
    assert.match(words(page.text), new RegExp(`Address ${address}`), 'checksummed');
  });

  it('a hash the chain does not know, a chain the sandbox does not have, anything else: 404', async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    for (const path of [
      `/explorer/${one.chainId}/tx/${unknown}`,
      `/explorer/${two.chainId}/tx/${burn.hash}`,
      `/explorer/1/tx/${burn.hash}`,
      `/explorer/${one.chainId}/tx/0x12`,
      `/explorer/${one.chainId}/address/0x12`,
      `/explorer/${one.chainId}`,
    ]) {
      const page = await http(`${sandbox.origin}${path}`);
      assert.equal(page.status, 404, path);
      assert.match(page.headers.get('content-type')!, /^text\/html/, path);
    }
  });

  it('any path: a page or a 404, never a failure, never the path’s markup echoed', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom('31337', '31338', 'tx', 'address', burn.hash, `<b>x</b>`, '0x', '"><script>'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 4 }), async (segments) => {
        const path = segments.map(encodeURIComponent).join('/');
        const page = await http(`${sandbox.origin}/explorer/${path}`);
        assert.ok(page.status === 200 || page.status === 404, `${path}: ${page.status}`);
        assert.ok(!page.text.includes('<script'), path);
        assert.ok(!page.text.includes('<b>'), path);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

/**
 * Kassa as a page's wallet, in real Chromium against a real proxy and the emulator's chains: a page
 * on an origin the proxy allows discovers Kassa through EIP-6963, connects after approval, prepares a
 * transfer through the proxy's browser route and sends it; the approval window shows the transfer
 * preview; approving signs and broadcasts, and the tokens arrive on the destination chain. Rejecting,
 * or closing the window, answers 4001, and every signing path fails closed. No request of the page or
 * of the extension carries the key or the password.
 *
 * The page is a plain page (no <kassa-bridge>): it speaks EIP-1193 the way docs/upstream.md says a
 * wallet is driven with a prepared transaction.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { formatUnits, Interface, toQuantity, Transaction } from 'ethers';
import type { Page } from 'playwright';
import { REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { startStack, type Stack } from '../support/stack.ts';
import {
  approvalWindow as openedApproval,
  configure,
  discoverKassa as discover,
  importVaultKey,
  launchExtension,
  leaks,
  openDapp,
  press,
  providerCall as call,
  type LoadedExtension,
} from '../support/extension.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'a long enough password';
const ACCOUNT = anvilAccount(3);
const tokenInterface = new Interface(REFORGE_TOKEN_ABI);

/** The account's balance of a token, in base units. */
const balanceOf = async (contract: ReturnType<typeof token>): Promise<bigint> =>
  (await contract.getFunction('balanceOf')(ACCOUNT.address)) as bigint;

describe('extension: Kassa as a page’s wallet (EIP-6963, approvals, signing)', () => {
  let server: Server;
  let origin: string;
  let stack: Stack;
  let extension: LoadedExtension;
  let page: Page;
  let chains: ReturnType<typeof chainProviders>;

  const approvalWindow = () => openedApproval(extension);
  const openPage = () => openDapp(extension, `${origin}/`);
  /** The page prepares a transfer through the proxy's browser route (CORS: its origin is allowed). */
  const prepare = async (amount: string, symbol = 'eUSD') => {
    const [one, two] = stack.sandbox.chains;
    const tx = await page.evaluate(
      async ({ proxy, body }) => {
        const response = await fetch(`${proxy}/api/bridge/prepare`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!response.ok) throw new Error(`prepare: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { tx: string }).tx;
      },
      {
        proxy: stack.proxy.origin,
        body: {
          sourceAmount: amount,
          sourceToken: one!.tokens[symbol as 'eUSD'].address,
          destinationToken: two!.tokens[symbol as 'eUSD'].address,
          destinationChainId: two!.chainId,
        },
      },
    );
    const prepared = Transaction.from(tx);
    // As docs/upstream.md says a page hands a prepared transaction to an EIP-1193 wallet.
    return {
      prepared,
      params: [
        {
          from: ACCOUNT.address,
          to: prepared.to,
          data: prepared.data,
          value: '0x0',
          gas: toQuantity(prepared.gasLimit),
          chainId: toQuantity(prepared.chainId),
        },
      ],
    };
  };

  before(async () => {
    server = createServer((request, response) => {
      response.writeHead(request.url === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A dapp</title></head><body><h1>A dapp</h1></body></html>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack({ env: { KASSA_ALLOWED_ORIGINS: origin } });
    chains = chainProviders(stack.sandbox.chains);
    extension = await launchExtension();
    await configure(extension, stack.proxy.origin);
    // The user imports a funded key into the vault.
    await importVaultKey(extension, ACCOUNT, PASSWORD);
    page = await openPage();
  });
  after(async () => {
    chains?.destroy();
    await extension?.dispose();
    await stack?.stop();
    server?.close();
  });

  it('announces itself through EIP-6963 and becomes window.ethereum when no other wallet has', async () => {
    const announced = await page.evaluate(() =>
      (window as unknown as { announced: Array<{ info: Record<string, string> }> }).announced.map(
        (entry) => entry.info,
      ),
    );
    const kassa = announced.filter((info) => info.rdns === 'dev.kassa.wallet');
    assert.ok(kassa.length >= 1);
    assert.equal(kassa[0]!.name, 'Kassa');
    assert.match(kassa[0]!.uuid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(kassa[0]!.icon!, /^data:image\/svg\+xml;base64,/);
    assert.ok(new Set(kassa.map((info) => info.uuid)).size === 1, 'one uuid per page');
    assert.equal(
      await page.evaluate(() => (window as { ethereum?: unknown }).ethereum === (window as { kassa?: unknown }).kassa),
      true,
    );
    // Announces again whenever asked.
    const again = await page.evaluate(() => {
      const before = (window as unknown as { announced: unknown[] }).announced.length;
      window.dispatchEvent(new Event('eip6963:requestProvider'));
      return (window as unknown as { announced: unknown[] }).announced.length - before;
    });
    assert.equal(again, 1);
  });

  it('leaves another wallet’s window.ethereum and its announcements alone', async () => {
    const other = await extension.context.newPage();
    // Another wallet that set window.ethereum before Kassa's script ran (as text: the function is not transpiled).
    await other.addInitScript({
      content: `(() => {
        const provider = { isOther: true, request: async () => null, on: () => undefined };
        const info = { uuid: '11111111-2222-4333-8444-555555555555', name: 'Other', icon: 'data:image/png;base64,AA==', rdns: 'com.example.other' };
        window.seenBeforeOther = window.ethereum === undefined ? 'nothing' : 'something';
        Object.defineProperty(window, 'ethereum', { value: provider, writable: true, configurable: true });
        window.addEventListener('eip6963:requestProvider', () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) })));
      })();`,
    });
    await other.addInitScript(discover);
    await other.goto(`${origin}/`);
    await other.waitForFunction(() => Boolean((window as { kassa?: unknown }).kassa));
    const seen = await other.evaluate(() => ({
      seenBeforeOther: (window as { seenBeforeOther?: string }).seenBeforeOther,
      ethereumIsOther: (window as { ethereum?: { isOther?: boolean } }).ethereum?.isOther === true,
      names: (window as unknown as { announced: Array<{ info: { name: string } }> }).announced
        .map((entry) => entry.info.name)
        .sort(),
      otherIntact: (window as unknown as { announced: Array<{ info: { name: string; rdns: string } }> }).announced.find(
        (entry) => entry.info.name === 'Other',
      )?.info.rdns,
    }));
    assert.equal(seen.seenBeforeOther, 'nothing', 'the other wallet ran first');
    assert.equal(seen.ethereumIsOther, true, 'Kassa did not take window.ethereum from the other wallet');
    assert.deepEqual(seen.names, ['Kassa', 'Other']);
    assert.equal(seen.otherIntact, 'com.example.other');
    await other.close();
  });

  it('before connecting: the chain and reads are answered, accounts are not, nothing is signed (4100)', async () => {
    assert.deepEqual(await call(page, 'eth_chainId'), { result: toQuantity(31337) });
    assert.deepEqual(await call(page, 'eth_accounts'), { result: [] });
    assert.match(String((await call(page, 'eth_blockNumber')).result), /^0x[0-9a-f]+$/);
    const balance = await call(page, 'eth_getBalance', [ACCOUNT.address, 'latest']);
    assert.ok(BigInt(balance.result as string) > 0n);
    const { params } = await prepare('1');
    const refused = await call(page, 'eth_sendTransaction', params);
    assert.equal(refused.error?.code, 4100);
    assert.match(refused.error.message, /not connected/);
    assert.equal((await call(page, 'personal_sign', ['0x00', ACCOUNT.address])).error?.code, 4200);
    assert.equal((await call(page, 'eth_signTypedData_v4', [ACCOUNT.address, '{}'])).error?.code, 4200);
    assert.equal((await call(page, 'eth_sendRawTransaction', ['0x00'])).error?.code, 4200);
    assert.equal((await call(page, 'eth_frobnicate')).error?.code, 4200);
  });

  it('connecting: rejected (4001), closed (4001), then approved in the approval window', async () => {
    let opening = approvalWindow();
    let asked = call(page, 'eth_requestAccounts');
    let approval = await opening;
    await approval.getByRole('heading', { name: 'Connect to this site?' }).waitFor();
    assert.equal(await approval.locator('#origin').textContent(), origin);
    await press(approval, 'Reject');
    assert.equal((await asked).error?.code, 4001);
    if (!approval.isClosed()) await approval.waitForEvent('close');

    opening = approvalWindow();
    asked = call(page, 'eth_requestAccounts');
    approval = await opening;
    await approval.getByRole('button', { name: 'Connect' }).waitFor();
    await approval.close();
    assert.equal((await asked).error?.code, 4001);

    opening = approvalWindow();
    asked = call(page, 'eth_requestAccounts');
    approval = await opening;
    await press(approval, 'Connect');
    assert.deepEqual(await asked, { result: [ACCOUNT.address] });
    assert.deepEqual(await call(page, 'eth_accounts'), { result: [ACCOUNT.address] });
    // Connected: asking again needs no window.
    assert.deepEqual(await call(page, 'eth_requestAccounts'), { result: [ACCOUNT.address] });
    assert.deepEqual(await call(page, 'wallet_getPermissions'), {
      result: [{ parentCapability: 'eth_accounts', invoker: origin, caveats: [] }],
    });
    await page.waitForFunction(() =>
      (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents.some(
        ([name]) => name === 'accountsChanged',
      ),
    );
  });

  it('switches among the chains the proxy lists (chainChanged); an unknown chain is 4902', async () => {
    assert.deepEqual(await call(page, 'wallet_switchEthereumChain', [{ chainId: toQuantity(31338) }]), {
      result: null,
    });
    assert.deepEqual(await call(page, 'eth_chainId'), { result: toQuantity(31338) });
    await page.waitForFunction(() =>
      (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents.some(
        ([name, value]) => name === 'chainChanged' && value === '0x7a6a',
      ),
    );
    assert.equal((await call(page, 'wallet_switchEthereumChain', [{ chainId: '0x1' }])).error?.code, 4902);
    assert.equal(
      (await call(page, 'wallet_addEthereumChain', [{ chainId: '0x1', rpcUrls: ['https://example.com'] }])).error?.code,
      4200,
    );
    assert.equal((await call(page, 'wallet_switchEthereumChain', [{ chainId: 'one' }])).error?.code, -32602);
  });

  it('fails closed: a transaction for another chain (-32602), from another account or not a Kassa transfer (4200)', async () => {
    // The wallet is on 31338; the prepared transfer burns on 31337.
    const { params } = await prepare('2');
    const otherChain = await call(page, 'eth_sendTransaction', params);
    assert.equal(otherChain.error?.code, -32602);
    assert.match(otherChain.error.message, /switch chains first/);
    assert.deepEqual(await call(page, 'wallet_switchEthereumChain', [{ chainId: toQuantity(31337) }]), {
      result: null,
    });

    const fromOther = await call(page, 'eth_sendTransaction', [{ ...params[0], from: anvilAccount(4).address }]);
    assert.equal(fromOther.error?.code, 4100);
    const token = stack.sandbox.chains[0]!.tokens.eUSD.address;
    const transfer = await call(page, 'eth_sendTransaction', [
      {
        from: ACCOUNT.address,
        to: token,
        data: tokenInterface.encodeFunctionData('transfer', [anvilAccount(4).address, 1n]),
        value: '0x0',
      },
    ]);
    assert.equal(transfer.error?.code, 4200);
    assert.match(
      transfer.error.message,
      /Kassa signs only Kassa transfers: The transaction calls transfer, not reforge/,
    );
    const sendsEther = await call(page, 'eth_sendTransaction', [
      { from: ACCOUNT.address, to: anvilAccount(4).address, value: '0xde0b6b3a7640000' },
    ]);
    assert.equal(sendsEther.error?.code, 4200);
    assert.equal(
      (await call(page, 'eth_sendTransaction', [{ from: ACCOUNT.address, gas: 'lots' }])).error?.code,
      -32602,
    );
    // More than the account holds: refused before any window opens, with the token's own reason.
    const tooMuch = await prepare('2000000');
    const reverted = await call(page, 'eth_sendTransaction', tooMuch.params);
    assert.equal(reverted.error?.code, -32603);
    assert.match(reverted.error.message, /The transaction would fail: ERC20InsufficientBalance/);
    assert.equal(
      extension.context.pages().filter((candidate) => candidate.url().includes('approval.html')).length,
      0,
      'no approval window was opened',
    );
  });

  it('a transfer: the approval window shows the preview; rejecting (or closing) is 4001, approving moves the tokens', async () => {
    const { prepared, params } = await prepare('12.5');
    const [one, two] = stack.sandbox.chains;
    const destination = token(two!, 'eUSD', chains.get(two!.chainId));
    const source = token(one!, 'eUSD', chains.get(one!.chainId));
    const before = { source: await balanceOf(source), destination: await balanceOf(destination) };

    let opening = approvalWindow();
    let sent = call(page, 'eth_sendTransaction', params);
    let approval = await opening;
    await approval.getByRole('heading', { name: 'Approve this transfer?' }).waitFor();
    // The wallet panel's preview, field by field (widget/bridge/views.ts renders both).
    const shown = async (selector: string) =>
      ((await approval.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ').trim();
    assert.equal(await shown('#origin'), origin);
    assert.equal(await shown('[data-field=burn]'), '12.5 eUSD on Kassa Local One');
    assert.equal(await shown('[data-field=mint]'), '12.5 eUSD on Kassa Local Two');
    assert.equal(await shown('[data-field=recipient] .mono'), ACCOUNT.address);
    assert.equal(await shown('[data-field=contract] .mono'), prepared.to);
    assert.equal(await shown('[data-field=method]'), 'reforge(uint256,uint256,address)');
    assert.equal(await shown('[data-field=network]'), 'Kassa Local One (chain 31337)');
    assert.match(await shown('[data-field=fee]'), /^0\.\d+ ETH$/);
    // One transaction per site waits at a time.
    assert.equal((await call(page, 'eth_sendTransaction', params)).error?.code, -32002);
    await press(approval, 'Reject');
    assert.equal((await sent).error?.code, 4001);

    opening = approvalWindow();
    sent = call(page, 'eth_sendTransaction', params);
    approval = await opening;
    await approval.getByRole('button', { name: 'Approve' }).waitFor();
    await approval.close();
    assert.equal((await sent).error?.code, 4001);
    assert.equal(await balanceOf(source), before.source, 'nothing was sent');

    opening = approvalWindow();
    sent = call(page, 'eth_sendTransaction', params);
    approval = await opening;
    await press(approval, 'Approve');
    const hash = (await sent).result as string;
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    // The receipt, read through Kassa (a read call forwarded to the chain's RPC).
    const receipt = await waitUntil(
      async () => (await call(page, 'eth_getTransactionReceipt', [hash])).result as { status: string } | null,
      (value) => value !== null,
      'the receipt',
    );
    assert.equal(receipt!.status, '0x1');
    const mined = await chains.get(one!.chainId).getTransaction(hash);
    assert.equal(mined!.from, ACCOUNT.address);
    assert.equal(mined!.data, prepared.data, 'what was signed is what was previewed');
    assert.equal(mined!.gasLimit, prepared.gasLimit);
    assert.equal(await balanceOf(source), before.source - 12_500_000_000_000_000_000n);
    const arrived = await waitUntil(
      () => balanceOf(destination),
      (balance) => balance > before.destination,
      'the arrival',
    );
    assert.equal(formatUnits(arrived - before.destination, 18), '12.5');
  });

  it('a transaction while locked fails closed (4100); connecting while locked asks for the password', async () => {
    const wallet = await extension.openPage('ui/popup.html?tab=wallet');
    await wallet.getByRole('button', { name: 'Lock now' }).click();
    await wallet
      .getByRole('heading', { name: /^Wallet/ })
      .locator('.badge')
      .filter({ hasText: /^Locked$/ })
      .waitFor();
    await page.waitForFunction(
      () =>
        (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents.at(-1)?.[0] ===
          'accountsChanged' &&
        ((window as unknown as { providerEvents: Array<[string, unknown[]]> }).providerEvents.at(-1)?.[1] ?? [])
          .length === 0,
    );
    assert.deepEqual(await call(page, 'eth_accounts'), { result: [] });
    const { params } = await prepare('1');
    const locked = await call(page, 'eth_sendTransaction', params);
    assert.equal(locked.error?.code, 4100);
    assert.match(locked.error.message, /locked/);

    const opening = approvalWindow();
    const asked = call(page, 'eth_requestAccounts');
    const approval = await opening;
    await approval.getByLabel(/password/).fill('wrong password!');
    await press(approval, 'Connect');
    await approval.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor({ timeout: PATIENCE_MS });
    await approval.waitForTimeout(1_100);
    await approval.getByLabel(/password/).fill(PASSWORD);
    await press(approval, 'Connect');
    assert.deepEqual(await asked, { result: [ACCOUNT.address] });

    // Disconnecting the site in the wallet view: no accounts, nothing signed.
    await wallet.reload();
    await wallet.getByRole('button', { name: `Disconnect ${origin}` }).click();
    await wallet.getByText('None.').waitFor();
    assert.deepEqual(await call(page, 'eth_accounts'), { result: [] });
    assert.equal((await call(page, 'eth_sendTransaction', params)).error?.code, 4100);
    await wallet.close();
  });

  it('no request of the page or of the extension carried the key or the password', () => {
    const fromPage = extension.requests.filter((request) => request.from.startsWith(origin));
    const fromWorker = extension.requests.filter((request) => request.from === 'service worker');
    assert.ok(
      fromPage.some(
        (request) =>
          request.url === `${stack.proxy.origin}/api/bridge/prepare` && request.postData.includes('sourceAmount'),
      ),
      'the page’s requests are recorded',
    );
    assert.ok(
      fromWorker.some((request) => request.postData.includes('eth_sendRawTransaction')),
      'the worker’s broadcast is recorded',
    );
    assert.deepEqual(leaks(extension.requests, [ACCOUNT.privateKey, PASSWORD]), []);
  });
});

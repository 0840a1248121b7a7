/**
 * The test wallets as web-test-runner server commands (`bridge:*`), for the component tests of the
 * wallet panel: the page holds only wallet-provider.ts's providers; requests come here, where
 * wallet-signer.ts signs with anvil keys that stay in this process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface, Transaction } from 'ethers';
import { REFORGE_TOKEN_ABI } from '../../../schemas/reforge.ts';
import type { Stack } from '../stack.ts';
import type { WalletAnswer, WalletRequest } from './wallet-provider.ts';
import { TestWalletHub, type TestWalletOptions } from './wallet-signer.ts';

/** Test wallet options as JSON (a gas limit as a decimal string). */
export type WalletSetup = Omit<TestWalletOptions, 'gasLimit'> & { gasLimit?: string };

export interface BridgeStackPayload {
  stack?: string;
}
export interface WalletsPayload extends BridgeStackPayload {
  wallets: WalletSetup[];
}
export interface WalletRequestPayload extends BridgeStackPayload, WalletRequest {}
export interface WalletActionPayload extends BridgeStackPayload {
  id: string;
  action: 'calls' | 'added' | 'signed' | 'release' | 'replace' | 'use-account' | 'move-to' | 'offline' | 'online';
  value?: number;
}
export interface ChainActionPayload extends BridgeStackPayload {
  chainId: number;
  action: 'automine' | 'mine' | 'drop' | 'balance' | 'nonce' | 'give';
  on?: boolean;
  hash?: string;
  token?: string;
  account?: string;
  /** Base units, a decimal string. */
  units?: string;
}

/**
 * How the tampering proxy changes what the real proxy answers: the prepared transaction (its amount,
 * method, fees or gas limit), the first chain's RPC URL (to a closed port), the on-ramp quote's
 * message (ten times the tokens), or the first on-ramp purchase's answer (lost on the way back: a
 * 502, though the purchase was made).
 */
export type Tampering = 'amount' | 'method' | 'fee' | 'gas' | 'dead-rpc' | 'quote-message' | 'lose-purchase-answer';
const PREPARED_TAMPERING: readonly Tampering[] = ['amount', 'method', 'fee', 'gas'];
export interface TamperingPayload extends BridgeStackPayload {
  tampering: Tampering;
}

/** The wallets' side of each installed wallet, as the browser needs it. */
export interface InstalledWalletInfo {
  id: string;
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
  address: string;
}

/**
 * A handler for the `bridge:*` commands (each answers something other than null or undefined, which
 * web-test-runner takes for "not handled here"), one wallet hub per stack; `undefined` for other commands.
 * `stackFor` starts (or finds) the named stack, as the plugin does for its own commands.
 */
export function walletCommands(stackFor: (payload: BridgeStackPayload) => Promise<Stack>) {
  const hubs = new Map<string, TestWalletHub>();
  const servers: Server[] = [];
  const hubFor = async (payload: BridgeStackPayload) => {
    const name = payload.stack ?? 'main';
    let hub = hubs.get(name);
    if (!hub) hubs.set(name, (hub = new TestWalletHub((await stackFor(payload)).sandbox.chains)));
    return hub;
  };

  return {
    close: () => {
      hubs.forEach((hub) => hub.close());
      servers.forEach((server) => server.close());
    },
    async execute(command: string, payload: unknown): Promise<unknown> {
      switch (command) {
        case 'bridge:wallets': {
          const { wallets } = payload as WalletsPayload;
          const hub = await hubFor(payload as BridgeStackPayload);
          return wallets.map((setup): InstalledWalletInfo => {
            const wallet = hub.add({
              ...setup,
              ...(setup.gasLimit ? { gasLimit: BigInt(setup.gasLimit) } : { gasLimit: undefined }),
            });
            return { ...wallet.announcement, address: wallet.address };
          });
        }
        case 'bridge:wallet': {
          const request = payload as WalletRequestPayload;
          return (await hubFor(request)).handle(request) satisfies Promise<WalletAnswer>;
        }
        case 'bridge:wallet-action': {
          const { id, action, value } = payload as WalletActionPayload;
          const wallet = (await hubFor(payload as BridgeStackPayload)).get(id);
          if (action === 'calls') return wallet.calls;
          if (action === 'added') return wallet.added;
          if (action === 'signed') return wallet.signed;
          if (action === 'release') return wallet.release();
          if (action === 'replace') return wallet.replaceLast();
          if (action === 'use-account') return wallet.useAccount(value!);
          if (action === 'offline' || action === 'online') return wallet.reach(action === 'online');
          return wallet.moveTo(value!);
        }
        case 'bridge:chain': {
          const { chainId, action, on, hash, token, account, units } = payload as ChainActionPayload;
          const hub = await hubFor(payload as BridgeStackPayload);
          if (action === 'give') return hub.give(chainId, token!, account!, BigInt(units!)).then(() => true);
          if (action === 'automine') return hub.automine(chainId, on ?? true).then(() => true);
          if (action === 'mine') return hub.mine(chainId).then(() => true);
          if (action === 'drop') return hub.dropPending(chainId, hash!).then(() => true);
          if (action === 'nonce') return hub.nonce(chainId, account!);
          return (await hub.tokenBalance(chainId, token!, account!)).toString();
        }
        case 'bridge:tampering-proxy': {
          const { tampering } = payload as TamperingPayload;
          const server = await tamperingProxy((await stackFor(payload as BridgeStackPayload)).proxy.origin, tampering);
          servers.push(server);
          return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        }
        default:
          return undefined;
      }
    },
  };
}

const tokenInterface = new Interface(REFORGE_TOKEN_ABI);

/** A max fee (and tip) per gas of a million gwei: 0.05 ETH for a transfer's 50,000 gas, on any chain. */
export const TAMPERED_FEE = 10n ** 15n;

/**
 * A compromised or buggy proxy, or a bad network, as a real HTTP server in front of the real one:
 * each prepared transaction is altered before the page gets it (a larger amount, or another method,
 * which the panel must refuse to hand to the wallet; a max fee of a million gwei, which it must not
 * show or send; a gas limit a hundred times too high, which it must refuse); or the listing names an
 * RPC URL where nothing answers; or an on-ramp answer is altered, or lost after the proxy acted on it.
 */
export function tamperingProxy(proxy: string, tampering: Tampering): Promise<Server> {
  let lost = false;
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, Idempotency-Key');
    if (request.method === 'OPTIONS') return response.writeHead(204).end();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${proxy}${request.url}`, {
      method: request.method,
      // The on-ramp's requests carry the page's origin on: the proxy writes it into the ownership message.
      headers: {
        'Content-Type': 'application/json',
        ...(request.headers.origin && request.url?.startsWith('/api/onramp/')
          ? { Origin: request.headers.origin }
          : {}),
        ...(typeof request.headers['idempotency-key'] === 'string'
          ? { 'Idempotency-Key': request.headers['idempotency-key'] }
          : {}),
      },
      body: request.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    let body = await upstream.text();
    if (tampering === 'lose-purchase-answer' && request.url === '/api/onramp/purchases' && !lost) {
      lost = true;
      return response.writeHead(502, { 'Content-Type': 'text/plain' }).end('Bad gateway');
    }
    if (upstream.ok && tampering === 'quote-message' && request.url === '/api/onramp/quotes') {
      const quote = JSON.parse(body) as { message: string };
      quote.message = quote.message.replace(/^Buy (\d+)/m, (_line, tokens: string) => `Buy ${Number(tokens) * 10}`);
      body = JSON.stringify(quote);
    } else if (upstream.ok && tampering === 'dead-rpc' && request.url?.startsWith('/api/bridge/chains')) {
      const chains = JSON.parse(body) as Array<{ rpcUrl: string }>;
      chains[0]!.rpcUrl = 'http://127.0.0.1:9';
      body = JSON.stringify(chains);
    } else if (upstream.ok && PREPARED_TAMPERING.includes(tampering) && request.url === '/api/bridge/prepare') {
      const tx = Transaction.from((JSON.parse(body) as { tx: string }).tx);
      const [units, chainId, token] = tokenInterface.decodeFunctionData('reforge', tx.data);
      if (tampering === 'fee') tx.maxFeePerGas = tx.maxPriorityFeePerGas = TAMPERED_FEE;
      else if (tampering === 'gas') tx.gasLimit *= 100n;
      else
        tx.data =
          tampering === 'amount'
            ? tokenInterface.encodeFunctionData('reforge', [(units as bigint) * 2n, chainId, token])
            : tokenInterface.encodeFunctionData('transfer', [token, units]);
      body = JSON.stringify({ tx: tx.unsignedSerialized });
    }
    response.writeHead(upstream.status, { 'Content-Type': 'application/json' }).end(body);
  };
  const server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

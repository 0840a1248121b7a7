/**
 * The EIP-1193 provider's brain: every request a page makes through Kassa, answered here in the
 * service worker with the page's origin as the port's sender gave it (never as the page said).
 *
 * Signing fails closed: no key or locked (4100), origin not connected (4100), a `from` that is not
 * the account (4100), a chain the proxy does not list (4901/4902), a transaction for another chain
 * than the wallet's (-32602), a transaction the transfer preview refuses or fees above Kassa's
 * ceiling (4200), a rejection or a closed approval window (4001), a blocked or paused site (4100,
 * 4001). Kassa signs nothing but `eth_sendTransaction` of Kassa transfers and `personal_sign` of a
 * Kassa purchase's ownership proof for the asking site (purchase-proof.ts): any other message and
 * typed-data signing are not offered (4200). Only connected sites may switch the wallet's chain.
 */
import { getAddress, toQuantity, type Wallet } from 'ethers';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { askUser, RetryableApprovalError, type ApprovalRequest } from './approvals.ts';
import { currentChain, listChains, switchChain } from './chains.ts';
import { connect, disconnect, isConnected } from './connections.ts';
import { checkPurchaseProof, personalSignParams, readPurchaseProof } from './purchase-proof.ts';
import { pagePorts, tellPage } from './page-ports.ts';
import { READ_METHODS, rpc } from './rpc.ts';
import { prepareSend, signAndSend } from './transaction.ts';
import { signer, touch, unlock, unlockedAddress, VaultError, vaultState } from './vault.ts';

/** What `eth_accounts` shows an origin: the account while unlocked and connected, else nothing. */
async function accountsFor(origin: string): Promise<string[]> {
  const address = await unlockedAddress();
  return address && (await isConnected(origin)) ? [address] : [];
}

/** Tells each page its accounts now (after a lock, an unlock, a connect or a disconnect). */
export async function announceAccounts(onlyOrigin?: string): Promise<void> {
  for (const [port, origin] of pagePorts())
    if (!onlyOrigin || origin === onlyOrigin) tellPage(port, 'accountsChanged', await accountsFor(origin));
}

export async function announceChain(chainId: number): Promise<void> {
  for (const [port] of pagePorts()) tellPage(port, 'chainChanged', toQuantity(chainId));
}

/**
 * The user (or a connected page, among listed chains) moved the wallet to another chain. A transaction
 * waiting for approval stays as it is: it names its own chain, which its window shows, and is signed
 * and sent on that chain; no site's switch cancels another site's request.
 */
export async function moveToChain(chainId: number): Promise<void> {
  const before = (await currentChain().catch(() => undefined))?.chainId;
  await switchChain(chainId);
  if (before !== chainId) await announceChain(chainId);
}

/** A page's switch: only a site the user connected may move the wallet (4100 for any other). */
async function pageSwitch(origin: string, chainId: number): Promise<null> {
  if (!(await isConnected(origin)))
    throw new ProviderRpcError(
      RPC.unauthorized,
      'This site is not connected to Kassa: request accounts (eth_requestAccounts) before switching chains',
    );
  await moveToChain(chainId);
  return null;
}

export async function forgetOrigin(origin: string): Promise<void> {
  if (await disconnect(origin)) await announceAccounts(origin);
}

const connecting = new Map<string, Promise<string[]>>();

async function requestAccounts(origin: string, lang?: string): Promise<string[]> {
  const { state } = await vaultState();
  if (state === 'empty')
    throw new ProviderRpcError(RPC.unauthorized, 'Kassa holds no key yet: create or import one in the Kassa extension');
  const accounts = await accountsFor(origin);
  if (accounts.length) return accounts;
  // Several calls while the window is open share it.
  let asking = connecting.get(origin);
  if (!asking) {
    asking = askUser({ kind: 'connect', origin, ...(lang ? { lang } : {}) }, async (answer) => {
      if ((await vaultState()).state !== 'unlocked') {
        try {
          await unlock(answer.password ?? '');
        } catch (error) {
          if (error instanceof VaultError) throw new RetryableApprovalError(error.message);
          throw error;
        }
      }
      await connect(origin);
      await touch();
      return accountsFor(origin);
    }).finally(() => connecting.delete(origin));
    connecting.set(origin, asking);
  }
  const granted = await asking;
  await announceAccounts(origin);
  return granted;
}

/** Origins with a signature in the approval window: one at a time each, so a page cannot pile up windows. */
const signing = new Set<string>();

function refuseWhileSigning(origin: string): void {
  if (signing.has(origin))
    throw new ProviderRpcError(
      RPC.alreadyPending,
      'A request of this site to sign is already waiting for approval in Kassa',
    );
}

/** The account a connected, unlocked wallet signs with for `origin`; every other case fails closed (4100). */
async function signingAccount(origin: string, what: string): Promise<string> {
  refuseWhileSigning(origin);
  if (!(await isConnected(origin)))
    throw new ProviderRpcError(
      RPC.unauthorized,
      'This site is not connected to Kassa: request accounts (eth_requestAccounts) first',
    );
  const { state } = await vaultState();
  if (state === 'empty') throw new ProviderRpcError(RPC.unauthorized, 'Kassa holds no key');
  const account = await unlockedAddress();
  if (!account)
    throw new ProviderRpcError(RPC.unauthorized, `Kassa is locked: unlock it in the Kassa extension, then ${what}`);
  return account;
}

/**
 * Queues the approval window of a signature for `origin` (one per site at a time); on Approve,
 * checks again that the key and the connection are as they were shown, then `sign`s with the key.
 */
async function askToSign<T>(
  origin: string,
  account: string,
  request: ApprovalRequest,
  sign: (key: Wallet) => Promise<T>,
): Promise<T> {
  // Another request of the site may have reached the window while this one was checked.
  refuseWhileSigning(origin);
  signing.add(origin);
  return askUser(request, async () => {
    // Everything is checked again at the moment of signing: any change while the window was open fails closed.
    const key = await signer();
    if (!key || getAddress(key.address) !== account)
      throw new ProviderRpcError(RPC.unauthorized, 'Kassa locked, or its key changed, before the request was approved');
    if (!(await isConnected(origin)))
      throw new ProviderRpcError(RPC.unauthorized, 'This site was disconnected before the request was approved');
    await touch();
    return sign(key);
  }).finally(() => signing.delete(origin));
}

async function sendTransaction(origin: string, params: unknown, lang?: string): Promise<string> {
  const account = await signingAccount(origin, 'try again');
  const chain = await currentChain();
  const chains = await listChains();
  const prepared = await prepareSend(params, chain, chains, account);
  const request: ApprovalRequest = {
    kind: 'transaction',
    origin,
    from: account,
    tx: prepared.tx.unsignedSerialized,
    chains,
    fee: prepared.fee,
    ...(lang ? { lang } : {}),
  };
  return askToSign(origin, account, request, async (key) => {
    // Signed for the chain it names and its window showed, even if the wallet moved meanwhile, as
    // long as the proxy still lists it.
    if (!(await listChains()).some((listed) => listed.chainId === chain.chainId))
      throw new ProviderRpcError(RPC.chainDisconnected, `${chain.name} is no longer among Kassa's chains`);
    return signAndSend(prepared.tx, chain, key);
  });
}

/**
 * `personal_sign` of the one message kind Kassa signs, a Kassa purchase's ownership proof
 * (purchase-proof.ts): checked for this site and account before any window opens, shown in words,
 * checked again when approved (it may have expired meanwhile), then signed (EIP-191) with the key.
 */
async function signPurchaseProof(origin: string, params: unknown, lang?: string): Promise<string> {
  const { text, address } = personalSignParams(params);
  // Any other message is refused as such, connected or not.
  readPurchaseProof(text);
  const account = await signingAccount(origin, 'try again');
  if (getAddress(address) !== account)
    throw new ProviderRpcError(
      RPC.unauthorized,
      `${getAddress(address)} is not the account Kassa connected to this site`,
    );
  const check = async () => checkPurchaseProof(text, { origin, account, chains: await listChains(), now: Date.now() });
  const proof = await check();
  return askToSign(
    origin,
    account,
    { kind: 'proof', origin, from: account, proof, ...(lang ? { lang } : {}) },
    async (key) => {
      await check();
      return key.signMessage(text);
    },
  );
}

/**
 * Signing a page could ask for besides Kassa transfers and purchase proofs: all refused (4200). A
 * message kind Kassa is ever to sign gets a case of its own in handleProviderRequest, ahead of this
 * refusal, with its own decoder and approval view (as `personal_sign` has); nothing reaches a key
 * through this list.
 */
const SIGNING_METHODS = new Set([
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v1',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
  'eth_sendRawTransaction',
]);

/** The first of a request's params (EIP-1193 params are an array or an object); undefined when there is none. */
const firstParam = (params: unknown): unknown => (Array.isArray(params) ? (params as unknown[])[0] : undefined);

function chainIdParam(params: unknown): number {
  const first = firstParam(params);
  const text = first && typeof first === 'object' ? (first as { chainId?: unknown }).chainId : undefined;
  if (typeof text !== 'string' || !/^0x[1-9a-fA-F][0-9a-fA-F]{0,12}$/.test(text))
    throw new ProviderRpcError(RPC.invalidParams, 'Expected [{ chainId: "0x…" }] with a hex chain id');
  return Number(BigInt(text));
}

/** A request of a page's provider; `lang` is the page's language, for an approval window it opens. */
export async function handleProviderRequest(
  origin: string,
  method: string,
  params: unknown,
  lang?: string,
): Promise<unknown> {
  switch (method) {
    case 'eth_chainId':
      return toQuantity((await currentChain()).chainId);
    case 'net_version':
      return String((await currentChain()).chainId);
    case 'eth_accounts':
      return accountsFor(origin);
    case 'eth_coinbase':
      return (await accountsFor(origin))[0] ?? null;
    case 'eth_requestAccounts':
      return requestAccounts(origin, lang);
    case 'wallet_requestPermissions': {
      const wanted = firstParam(params);
      if (!wanted || typeof wanted !== 'object' || !Object.keys(wanted).every((name) => name === 'eth_accounts'))
        throw new ProviderRpcError(RPC.invalidParams, 'Kassa grants eth_accounts only');
      await requestAccounts(origin, lang);
      return [{ parentCapability: 'eth_accounts', invoker: origin, caveats: [] }];
    }
    case 'wallet_getPermissions':
      return (await isConnected(origin)) ? [{ parentCapability: 'eth_accounts', invoker: origin, caveats: [] }] : [];
    case 'wallet_revokePermissions':
      await forgetOrigin(origin);
      return null;
    case 'wallet_switchEthereumChain':
      return pageSwitch(origin, chainIdParam(params));
    case 'wallet_addEthereumChain': {
      // Kassa's chains are the proxy's listing: adding one it lists is switching to it; no others.
      const chainId = chainIdParam(params);
      const listed = (await listChains().catch(() => [])).some((chain) => chain.chainId === chainId);
      if (!listed)
        throw new ProviderRpcError(
          RPC.unsupported,
          `Kassa adds no chains: it works on the chains its proxy lists, and ${chainId} is not one of them`,
        );
      return pageSwitch(origin, chainId);
    }
    case 'eth_sendTransaction':
      return sendTransaction(origin, params, lang);
    case 'personal_sign':
      return signPurchaseProof(origin, params, lang);
    default:
      if (SIGNING_METHODS.has(method))
        throw new ProviderRpcError(
          RPC.unsupported,
          `Kassa signs only Kassa transfers (eth_sendTransaction) and Kassa purchase proofs (personal_sign); ${method} is not supported`,
        );
      if (READ_METHODS.has(method)) return rpc(await currentChain(), method, (params as unknown[] | undefined) ?? []);
      throw new ProviderRpcError(RPC.unsupported, `Kassa does not support ${method}`);
  }
}

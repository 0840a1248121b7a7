/**
 * Whether Kassa is "connected" as EIP-1193 means it: able to serve requests on at least one of its
 * chains (the proxy's listing read, and a chain's node answering `eth_chainId` with that chain's id).
 * The worker owns this and tells pages when it changes: `disconnect` with a 4900 error when no chain
 * answers (EIP-1193's code for "disconnected from all chains", in CloseEvent's range for
 * applications), `connect` with the wallet's chain when one answers again. One chain down while
 * another answers is no disconnection: requests for it fail with 4901.
 *
 * Checked when a page attaches, when a page's request fails to reach a chain, every HEARTBEAT_MS
 * while pages are open, and every RETRY_MS while no chain answers.
 */
import { toQuantity } from 'ethers';
import { RPC, type RpcErrorJson } from '../eip1193.ts';
import { currentChain, listChains } from './chains.ts';
import { pagePorts, pagesOpen, tellPage } from './page-ports.ts';
import { rpc } from './rpc.ts';

export type Link = { connected: true; chainId: string } | { connected: false; error: RpcErrorJson };

const PROBE_TIMEOUT_MS = 5_000;
const HEARTBEAT_MS = 15_000;
const RETRY_MS = 2_000;

/** What the pages were last told, in this worker's life. */
let link: Link | undefined;
let checking: Promise<Link> | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

const down = (message: string): Link => ({ connected: false, error: { code: RPC.disconnected, message } });

async function probe(): Promise<Link> {
  let chains;
  try {
    chains = await listChains();
  } catch (error) {
    return down(`Kassa cannot read its chains from its proxy: ${(error as Error).message}`);
  }
  const answering = await Promise.any(
    chains.map(async (chain) => {
      const id = await rpc(chain, 'eth_chainId', [], PROBE_TIMEOUT_MS);
      if (typeof id !== 'string' || BigInt(id) !== BigInt(chain.chainId)) throw new Error(`${chain.name}: wrong chain`);
    }),
  ).then(
    () => true,
    () => false,
  );
  if (!answering)
    return down(`None of Kassa's chains answers (${chains.map((chain) => chain.name).join(', ') || 'none listed'})`);
  return { connected: true, chainId: toQuantity((await currentChain()).chainId) };
}

const tell = (port: chrome.runtime.Port, told: Link) =>
  told.connected ? tellPage(port, 'connect', { chainId: told.chainId }) : tellPage(port, 'disconnect', told.error);

function schedule(): void {
  clearTimeout(timer);
  if (!pagesOpen() || !link) return;
  timer = setTimeout(() => void (pagesOpen() && checkLink()), link.connected ? HEARTBEAT_MS : RETRY_MS);
}

/** Checks the chains (one check at a time) and tells every page when the link changed. */
export function checkLink(): Promise<Link> {
  checking ??= probe()
    .catch((error: unknown) => down(`Kassa cannot check its chains: ${(error as Error).message}`))
    .then((next) => {
      const changed =
        !link ||
        link.connected !== next.connected ||
        (next.connected && link.connected && next.chainId !== link.chainId);
      link = next;
      if (changed) for (const [port] of pagePorts()) tell(port, next);
      return next;
    })
    .finally(() => {
      checking = undefined;
      schedule();
    });
  return checking;
}

/** Tells a page that just attached where Kassa stands (a page hears the same state twice as once). */
export async function tellLink(port: chrome.runtime.Port): Promise<void> {
  tell(port, link && !checking ? link : await checkLink());
  schedule();
}

/** The pages were last told that no chain answers. */
export const linkDown = (): boolean => link?.connected === false;

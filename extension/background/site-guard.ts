/**
 * What keeps a site from wearing the user down with approval windows: a site the user keeps
 * rejecting is paused (its requests are refused without a window, 4100, as MetaMask's spam filter
 * answers), and one the user blocks is refused until they unblock it in the Wallet tab. An approval
 * clears the count. Rejections are counted in `chrome.storage.session` (kept across service-worker
 * restarts, forgotten when the browser closes); blocked sites in `chrome.storage.local`.
 */
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { KEYS, readLocal, readSession, writeLocal, writeSession } from './storage.ts';

export const REJECTION_RULES = {
  /** This many rejections of a site in a row, each within `withinMs` of the one before, pause it… */
  limit: 3,
  withinMs: 30_000,
  /** …for this long, doubled at each further pause, at most `maxPauseMs`. */
  pauseMs: 60_000,
  maxPauseMs: 10 * 60_000,
} as const;

interface Rejections {
  /** When the user rejected the site's recent requests (epoch ms). */
  at: number[];
  /** Until when its requests are refused, and how many pauses it had (each doubles the next). */
  pausedUntil: number;
  pauses: number;
}

type RejectionBook = Record<string, Rejections>;

const readBook = async (): Promise<RejectionBook> => (await readSession<RejectionBook>(KEYS.rejections)) ?? {};
const readBlocked = async (): Promise<string[]> => (await readLocal<string[]>(KEYS.blocked)) ?? [];

/** Why a request of `origin` is refused before any window opens, or undefined when it may ask. */
export async function refusalFor(origin: string): Promise<ProviderRpcError | undefined> {
  if ((await readBlocked()).includes(origin))
    return new ProviderRpcError(RPC.unauthorized, 'This site is blocked in Kassa: unblock it in Kassa’s Wallet tab');
  const pausedUntil = (await readBook())[origin]?.pausedUntil ?? 0;
  const seconds = Math.ceil((pausedUntil - Date.now()) / 1000);
  if (seconds > 0)
    return new ProviderRpcError(
      RPC.unauthorized,
      `The user rejected this site's requests several times: Kassa refuses them for ${seconds} s`,
    );
  return undefined;
}

/** The user rejected a request of `origin` (or closed its window). */
export async function noteRejection(origin: string): Promise<void> {
  const book = await readBook();
  const now = Date.now();
  const entry = book[origin] ?? { at: [], pausedUntil: 0, pauses: 0 };
  const last = entry.at.at(-1);
  entry.at = last !== undefined && now - last < REJECTION_RULES.withinMs ? [...entry.at, now] : [now];
  if (entry.at.length >= REJECTION_RULES.limit) {
    const pause = Math.min(REJECTION_RULES.pauseMs * 2 ** entry.pauses, REJECTION_RULES.maxPauseMs);
    entry.pausedUntil = now + pause;
    entry.pauses += 1;
    entry.at = [];
  }
  book[origin] = entry;
  await writeSession(KEYS.rejections, book);
}

/** The user approved a request of `origin`: its rejections are forgotten. */
export async function noteApproval(origin: string): Promise<void> {
  const book = await readBook();
  if (!book[origin]) return;
  delete book[origin];
  await writeSession(KEYS.rejections, book);
}

/** Whether the user rejected a request of `origin` before (in this browser session). */
export async function rejectedBefore(origin: string): Promise<boolean> {
  const entry = (await readBook())[origin];
  return Boolean(entry && (entry.at.length || entry.pauses));
}

export async function block(origin: string): Promise<void> {
  const blocked = await readBlocked();
  if (!blocked.includes(origin)) await writeLocal(KEYS.blocked, [...blocked, origin].sort());
}

export async function unblock(origin: string): Promise<void> {
  await writeLocal(
    KEYS.blocked,
    (await readBlocked()).filter((entry) => entry !== origin),
  );
}

export const blockedOrigins = readBlocked;

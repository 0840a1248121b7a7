/**
 * The approval window: a popup window of the extension's own page (ui/approval.html?id=…) for each
 * connect request, each transaction and each purchase proof. The request waits here until the user answers in that window;
 * closing it is a rejection (4001). The window keeps a port open to this worker, which keeps the worker
 * (and so the waiting request) alive while the user reads.
 *
 * One window at a time, whatever the site: the other requests wait in line behind it (at most
 * `MAX_WAITING`) and the next window opens when the one shown is answered, so no site (or five
 * subdomains of one) can bury the user in windows. A site the user keeps rejecting is paused, and one
 * they block is refused without asking (site-guard.ts).
 */
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import type { PurchaseProof } from './purchase-proof.ts';
import { noteApproval, noteRejection, refusalFor } from './site-guard.ts';

/** `lang`: the asking page's language, for the window. */
export type ApprovalRequest =
  | { kind: 'connect'; origin: string; lang?: string }
  | {
      kind: 'transaction';
      origin: string;
      from: string;
      tx: string;
      chains: ChainEntry[];
      fee: { high: boolean; usualWei: bigint };
      lang?: string;
    }
  | { kind: 'proof'; origin: string; from: string; proof: PurchaseProof; lang?: string };

export interface ApprovalAnswer {
  approve: boolean;
  password?: string;
}

/** An approval that failed in a way the user can correct in the same window, which stays open. */
export class RetryableApprovalError extends Error {}

interface Pending {
  id: string;
  request: ApprovalRequest;
  windowId?: number;
  /** Its window was asked for (it is the one shown). */
  shown: boolean;
  busy: boolean;
  onApprove(answer: ApprovalAnswer): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Waiting requests, in the order they came: the first is the one whose window is open. */
const pending = new Map<string, Pending>();
const WINDOW = { width: 400, height: 640 };
/** The most requests that may wait, all sites together. */
const MAX_WAITING = 20;

export function pendingApproval(id: string): { id: string; request: ApprovalRequest; queued: number } | undefined {
  const entry = pending.get(id);
  return entry && { id: entry.id, request: entry.request, queued: pending.size - 1 };
}

/** Opens the window of the first waiting request, unless one is open already. */
function showNext(): void {
  const next = pending.values().next().value;
  if (!next || next.shown) return;
  next.shown = true;
  chrome.windows
    .create({
      url: chrome.runtime.getURL(`ui/approval.html?id=${encodeURIComponent(next.id)}`),
      type: 'popup',
      focused: true,
      ...WINDOW,
    })
    .then((window) => {
      next.windowId = window?.id;
      // Settled while the window was opening: it has nothing to show.
      if (!pending.has(next.id) && window?.id !== undefined)
        void chrome.windows.remove(window.id).catch(() => undefined);
    })
    .catch((error: Error) => {
      settle(next);
      next.reject(new ProviderRpcError(RPC.internal, `Kassa could not open its approval window: ${error.message}`));
    });
}

function remove(entry: Pending): void {
  pending.delete(entry.id);
  if (entry.windowId !== undefined) void chrome.windows.remove(entry.windowId).catch(() => undefined);
}

/** The request leaves the line (its window closes) and the next one's window opens. */
function settle(entry: Pending): void {
  remove(entry);
  showNext();
}

/**
 * Queues `request` for the user and settles with what `onApprove` returns once they approve, or 4001
 * when they reject or close the window. A blocked or paused site is refused at once, with no window.
 */
export async function askUser<T>(
  request: ApprovalRequest,
  onApprove: (answer: ApprovalAnswer) => Promise<T>,
): Promise<T> {
  const refused = await refusalFor(request.origin);
  if (refused) throw refused;
  if (pending.size >= MAX_WAITING)
    throw new ProviderRpcError(RPC.alreadyPending, 'Too many requests are waiting for the user in Kassa: try later');
  return new Promise<T>((resolve, reject) => {
    const entry: Pending = {
      id: crypto.randomUUID(),
      request,
      shown: false,
      busy: false,
      onApprove,
      resolve,
      reject,
    };
    pending.set(entry.id, entry);
    showNext();
  });
}

function rejectedByUser(entry: Pending, message: string): void {
  settle(entry);
  entry.reject(new ProviderRpcError(RPC.userRejected, message));
  void noteRejection(entry.request.origin);
}

/**
 * The user's answer from the approval window. Resolves once the request is carried out (or
 * rejected); throws what the window should show: a RetryableApprovalError keeps it open.
 */
export async function answerApproval(id: string, answer: ApprovalAnswer): Promise<void> {
  const entry = pending.get(id);
  if (!entry) throw new Error('This request is no longer waiting: it was answered, or its page closed');
  if (entry.busy) throw new RetryableApprovalError('This request is being answered');
  if (!answer.approve) return rejectedByUser(entry, 'The user rejected the request');
  entry.busy = true;
  try {
    const value = await entry.onApprove(answer);
    settle(entry);
    entry.resolve(value);
    void noteApproval(entry.request.origin);
  } catch (error) {
    entry.busy = false;
    if (error instanceof RetryableApprovalError) throw error;
    settle(entry);
    entry.reject(error);
    throw error;
  }
}

/** A window was closed: a request still waiting in it is rejected (4001). */
export function windowClosed(windowId: number): void {
  for (const entry of [...pending.values()])
    if (entry.windowId === windowId && !entry.busy) rejectedByUser(entry, 'The user closed the approval window');
}

/** Rejects (and closes the windows of) the waiting requests that `predicate` picks. */
export function rejectWhere(predicate: (request: ApprovalRequest) => boolean, error: ProviderRpcError): void {
  for (const entry of [...pending.values()]) {
    if (!entry.busy && predicate(entry.request)) {
      remove(entry);
      entry.reject(error);
    }
  }
  showNext();
}

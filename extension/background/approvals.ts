/**
 * The approval window: a popup window of the extension's own page (ui/approval.html?id=…) for each
 * connect request and each transaction. The request waits here until the user answers in that window;
 * closing it is a rejection (4001). The window keeps a port open to this worker, which keeps the worker
 * (and so the waiting request) alive while the user reads.
 */
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';

/** `lang`: the asking page's language, for the window. */
export type ApprovalRequest =
  | { kind: 'connect'; origin: string; lang?: string }
  | { kind: 'transaction'; origin: string; from: string; tx: string; chains: ChainEntry[]; lang?: string };

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
  busy: boolean;
  onApprove(answer: ApprovalAnswer): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const pending = new Map<string, Pending>();
const WINDOW = { width: 400, height: 640 };

export function pendingApproval(id: string): { id: string; request: ApprovalRequest } | undefined {
  const entry = pending.get(id);
  return entry && { id: entry.id, request: entry.request };
}

function close(entry: Pending): void {
  pending.delete(entry.id);
  if (entry.windowId !== undefined) void chrome.windows.remove(entry.windowId).catch(() => undefined);
}

/**
 * Opens the approval window for `request` and settles with what `onApprove` returns once the user
 * approves, or 4001 when they reject or close the window.
 */
export function askUser<T>(request: ApprovalRequest, onApprove: (answer: ApprovalAnswer) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const entry: Pending = {
      id: crypto.randomUUID(),
      request,
      busy: false,
      onApprove,
      resolve: resolve,
      reject,
    };
    pending.set(entry.id, entry);
    chrome.windows
      .create({
        url: chrome.runtime.getURL(`ui/approval.html?id=${encodeURIComponent(entry.id)}`),
        type: 'popup',
        focused: true,
        ...WINDOW,
      })
      .then((window) => {
        entry.windowId = window?.id;
        // Settled while the window was opening: it has nothing to show.
        if (!pending.has(entry.id) && window?.id !== undefined)
          void chrome.windows.remove(window.id).catch(() => undefined);
      })
      .catch((error: Error) => {
        pending.delete(entry.id);
        reject(new ProviderRpcError(RPC.internal, `Kassa could not open its approval window: ${error.message}`));
      });
  });
}

/**
 * The user's answer from the approval window. Resolves once the request is carried out (or
 * rejected); throws what the window should show: a RetryableApprovalError keeps it open.
 */
export async function answerApproval(id: string, answer: ApprovalAnswer): Promise<void> {
  const entry = pending.get(id);
  if (!entry) throw new Error('This request is no longer waiting: it was answered, or its page closed');
  if (entry.busy) throw new RetryableApprovalError('This request is being answered');
  if (!answer.approve) {
    close(entry);
    entry.reject(new ProviderRpcError(RPC.userRejected, 'The user rejected the request'));
    return;
  }
  entry.busy = true;
  try {
    const value = await entry.onApprove(answer);
    close(entry);
    entry.resolve(value);
  } catch (error) {
    entry.busy = false;
    if (error instanceof RetryableApprovalError) throw error;
    close(entry);
    entry.reject(error);
    throw error;
  }
}

/** A window was closed: a request still waiting in it is rejected (4001). */
export function windowClosed(windowId: number): void {
  for (const entry of [...pending.values()]) {
    if (entry.windowId === windowId && !entry.busy) {
      pending.delete(entry.id);
      entry.reject(new ProviderRpcError(RPC.userRejected, 'The user closed the approval window'));
    }
  }
}

/** Rejects, and closes the windows of, the waiting requests that `predicate` picks. */
export function rejectWhere(predicate: (request: ApprovalRequest) => boolean, error: ProviderRpcError): void {
  for (const entry of [...pending.values()]) {
    if (!entry.busy && predicate(entry.request)) {
      close(entry);
      entry.reject(error);
    }
  }
}

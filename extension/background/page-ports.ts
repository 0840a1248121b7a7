/**
 * The pages that hold Kassa's provider: one port each (their content script's), with the page's
 * origin as the port's sender gave it. What pages hear (EIP-1193 events) goes out through here.
 */
import type { ProviderEvent } from '../page-messages.ts';

const ports = new Map<chrome.runtime.Port, string>();

export function addPagePort(port: chrome.runtime.Port, origin: string): void {
  ports.set(port, origin);
}

/** Forgets a closed page; whether another page of its origin is still open. */
export function removePagePort(port: chrome.runtime.Port): boolean {
  const origin = ports.get(port);
  ports.delete(port);
  return [...ports.values()].includes(origin ?? '');
}

export const pagesOpen = (): boolean => ports.size > 0;

/** Every open page's port and origin. */
export const pagePorts = (): Array<[chrome.runtime.Port, string]> => [...ports];

export function tellPage(port: chrome.runtime.Port, event: ProviderEvent, data: unknown): void {
  try {
    port.postMessage({ type: 'event', event, data });
  } catch {
    ports.delete(port);
  }
}

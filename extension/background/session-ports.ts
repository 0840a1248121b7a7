/**
 * The popup's and side panel's session ports: each hears the operator's session at once and on every
 * change (signed in, signing in, signed out and why, a role changed). While one is open the worker
 * follows the proxy's live stream, which ends the moment this device's token stops working, so an open
 * view says "signed out" within a second of a revocation made anywhere, without a call of its own.
 */
import type { SessionPortMessage } from '../operator-messages.ts';
import { whoAmI } from './operator-api.ts';
import { onSessionChange, sessionView, storedSession } from './operator-session.ts';
import { listenToPayments } from './payment-stream.ts';

const ports = new Set<chrome.runtime.Port>();

async function announce(to: Iterable<chrome.runtime.Port>): Promise<void> {
  const message: SessionPortMessage = { type: 'session', session: await sessionView() };
  for (const port of to) {
    try {
      port.postMessage(message);
    } catch {
      // closed meanwhile: its onDisconnect takes it out
    }
  }
}

onSessionChange(() => void announce(ports));

/** A page's session port: told now and on every change; the live stream is followed while it is open. */
export function acceptSessionPort(port: chrome.runtime.Port): void {
  ports.add(port);
  const unlisten = listenToPayments({ onState: () => undefined });
  port.onDisconnect.addListener(() => {
    ports.delete(port);
    unlisten();
  });
  void announce([port]);
  // Who this device is, asked again as a page opens: a role changed elsewhere shows at once.
  void storedSession().then((session) => (session ? whoAmI().catch(() => undefined) : undefined));
}

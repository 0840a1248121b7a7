/**
 * Where the service worker keeps its state. `chrome.storage.local` (on disk, kept across restarts):
 * the settings, the operator's device session (its token, bound to the proxy that issued it) and why
 * the last one ended, the encrypted keystore, the wrong-password counter, connected and blocked
 * origins, the chain. `chrome.storage.session` (in memory, emptied when the browser closes or the
 * extension reloads, kept across service-worker restarts): the unlocked key and the time it locks, the
 * sites' recent rejections, a device sign-in under way (its device code). Both are restricted to the
 * extension's own pages and worker: content scripts, which run beside web pages, cannot read them.
 */
export const KEYS = {
  settings: 'kassa.settings',
  vault: 'kassa.vault',
  throttle: 'kassa.unlockThrottle',
  walletSettings: 'kassa.walletSettings',
  connections: 'kassa.connections',
  blocked: 'kassa.blockedOrigins',
  rejections: 'kassa.rejections',
  chainId: 'kassa.chainId',
  unlocked: 'kassa.unlocked',
  language: 'kassa.language',
  operatorSession: 'kassa.operatorSession',
  sessionNotice: 'kassa.sessionNotice',
  deviceSignIn: 'kassa.deviceSignIn',
} as const;

export async function readLocal<T>(key: string): Promise<T | undefined> {
  return (await chrome.storage.local.get(key))[key] as T | undefined;
}

export async function writeLocal(key: string, value: unknown): Promise<void> {
  await chrome.storage.local.set({ [key]: value });
}

export async function readSession<T>(key: string): Promise<T | undefined> {
  return (await chrome.storage.session.get(key))[key] as T | undefined;
}

export async function writeSession(key: string, value: unknown): Promise<void> {
  await chrome.storage.session.set({ [key]: value });
}

/**
 * Session storage is trusted-contexts-only by default; local storage is not, so it is restricted here
 * at every start of the worker. (Current Chromium accepts an access level for local storage; one that
 * refuses the call leaves Kassa's own content scripts, which never read storage, as the only other
 * possible reader.)
 */
export async function restrictStorage(): Promise<void> {
  await chrome.storage.session.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
  await chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
}

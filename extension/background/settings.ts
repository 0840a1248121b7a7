import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import type { Network, SettingsView } from '../messages.ts';
import type { OperatorSessionView } from '../operator-messages.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';

/**
 * What the user configures: where the Kassa proxy is (the wallet reads its public chain listing, the
 * operator views sign in to it) and which of its networks the wallet uses. No credential: the
 * operator's device session is kept apart, bound to the proxy that issued it (operator-session.ts).
 */
export interface Settings {
  proxyUrl: string;
  network: Network;
}

/** As an earlier version saved them: with one shared operator token for the operator views. */
type StoredSettings = Partial<Settings> & { operatorToken?: unknown; tokenProxyUrl?: unknown };

export class SettingsError extends Error {}

/**
 * The settings. A shared operator token an earlier version saved with them is dropped here, once,
 * with a note that the operator views now need the person's own sign-in.
 */
export async function loadSettings(): Promise<Partial<Settings>> {
  const stored = (await readLocal<StoredSettings>(KEYS.settings)) ?? {};
  if (!('operatorToken' in stored) && !('tokenProxyUrl' in stored)) return stored;
  const settings: Partial<Settings> = {
    ...(stored.proxyUrl ? { proxyUrl: stored.proxyUrl } : {}),
    ...(stored.network ? { network: stored.network } : {}),
  };
  await writeLocal(KEYS.settings, settings);
  const notice: OperatorSessionView['notice'] = {
    reason: 'token-retired',
    detail: null,
    proxyUrl: settings.proxyUrl ?? null,
  };
  await writeLocal(KEYS.sessionNotice, notice);
  return settings;
}

/** The proxy, for the wallet's public reads: a clear error when the extension has not been set up yet. */
export async function requireProxy(): Promise<{ proxyUrl: string; network: Network }> {
  const settings = await loadSettings();
  if (!settings.proxyUrl) throw new SettingsError('Kassa is not set up yet: enter your proxy URL in Settings');
  return { proxyUrl: settings.proxyUrl, network: settings.network ?? 'test' };
}

export function settingsView(settings: Partial<Settings>): SettingsView {
  return { proxyUrl: settings.proxyUrl ?? null, network: settings.network ?? 'test' };
}

/**
 * The proxy URL is an origin (a path is dropped) on https, or plain http on loopback only: the
 * device token must never cross a network in clear text.
 */
export async function saveSettings(input: { proxyUrl: string; network: Network }): Promise<SettingsView> {
  const text = input.proxyUrl.trim();
  if (!isHttpsOrLoopback(text))
    throw new SettingsError('The proxy URL must be https://…, or http:// on this computer (127.0.0.1, localhost)');
  const settings: Settings = { proxyUrl: new URL(text).origin, network: input.network };
  await writeLocal(KEYS.settings, settings);
  return settingsView(settings);
}

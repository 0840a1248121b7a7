import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import type { Network, SettingsView } from '../messages.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';

/**
 * What the user configures: where the Kassa proxy is (the wallet reads its public chain listing) and,
 * for the operator views only, its KASSA_OPERATOR_TOKEN, kept with the proxy URL it was entered for.
 */
export interface Settings {
  proxyUrl: string;
  network: Network;
  operatorToken?: string;
  /** The proxy URL the token was entered for: it is sent there and nowhere else. */
  tokenProxyUrl?: string;
}

export class SettingsError extends Error {}

export async function loadSettings(): Promise<Partial<Settings>> {
  const stored = (await readLocal<Partial<Settings>>(KEYS.settings)) ?? {};
  // Saved before tokens were bound: the token was entered for the URL saved with it.
  return stored.operatorToken && !stored.tokenProxyUrl ? { ...stored, tokenProxyUrl: stored.proxyUrl } : stored;
}

/** The token, if one was entered for the proxy URL now configured. */
const boundToken = (settings: Partial<Settings>): string | undefined =>
  settings.operatorToken && settings.tokenProxyUrl === settings.proxyUrl ? settings.operatorToken : undefined;

/** The proxy, for the wallet's public reads: a clear error when the extension has not been set up yet. */
export async function requireProxy(): Promise<{ proxyUrl: string; network: Network }> {
  const settings = await loadSettings();
  if (!settings.proxyUrl) throw new SettingsError('Kassa is not set up yet: enter your proxy URL in Settings');
  return { proxyUrl: settings.proxyUrl, network: settings.network ?? 'test' };
}

/** The proxy and the operator token entered for it, for the operator views; else a clear error. */
export async function requireOperator(): Promise<{ proxyUrl: string; operatorToken: string }> {
  const { proxyUrl } = await requireProxy();
  const operatorToken = boundToken(await loadSettings());
  if (!operatorToken)
    throw new SettingsError(`Enter the operator token for ${proxyUrl} in Settings (the operator views need it)`);
  return { proxyUrl, operatorToken };
}

export function settingsView(settings: Partial<Settings>): SettingsView {
  const token = boundToken(settings);
  return {
    proxyUrl: settings.proxyUrl ?? null,
    tokenSet: Boolean(token),
    tokenHint: token ? token.slice(-4) : null,
    network: settings.network ?? 'test',
  };
}

/**
 * The proxy URL is an origin (a path is dropped) on https, or plain http on loopback only: the
 * operator token must never cross a network in clear text. The token is optional (the wallet needs
 * none) and is the proxy's rule: 16+ printable characters. Left empty, the saved one is kept only
 * while the proxy URL stays the one it was entered for: a new URL never receives the old token.
 */
export async function saveSettings(input: {
  proxyUrl: string;
  operatorToken?: string;
  network: Network;
}): Promise<SettingsView> {
  const text = input.proxyUrl.trim();
  if (!isHttpsOrLoopback(text))
    throw new SettingsError('The proxy URL must be https://…, or http:// on this computer (127.0.0.1, localhost)');
  const proxyUrl = new URL(text).origin;
  const entered = input.operatorToken?.trim() ?? '';
  if (entered && (entered.length < 16 || !/^[\x21-\x7e]+$/.test(entered)))
    throw new SettingsError('The operator token is at least 16 characters, with no spaces');
  const previous = await loadSettings();
  const kept = previous.tokenProxyUrl === proxyUrl ? previous.operatorToken : undefined;
  const operatorToken = entered || kept;
  const settings: Settings = {
    proxyUrl,
    network: input.network,
    ...(operatorToken ? { operatorToken, tokenProxyUrl: proxyUrl } : {}),
  };
  await writeLocal(KEYS.settings, settings);
  return settingsView(settings);
}

import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import type { Network, SettingsView } from '../messages.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';

/** What the operator configures: where their Kassa proxy is and its KASSA_OPERATOR_TOKEN. */
export interface Settings {
  proxyUrl: string;
  operatorToken: string;
  network: Network;
}

export class SettingsError extends Error {}

export async function loadSettings(): Promise<Partial<Settings>> {
  return (await readLocal<Partial<Settings>>(KEYS.settings)) ?? {};
}

/** The settings, or a clear error when the extension has not been set up yet. */
export async function requireSettings(): Promise<Settings> {
  const settings = await loadSettings();
  if (!settings.proxyUrl || !settings.operatorToken)
    throw new SettingsError('Kassa is not set up yet: enter your proxy URL and operator token in Settings');
  return { proxyUrl: settings.proxyUrl, operatorToken: settings.operatorToken, network: settings.network ?? 'test' };
}

export function settingsView(settings: Partial<Settings>): SettingsView {
  return {
    proxyUrl: settings.proxyUrl ?? null,
    tokenSet: Boolean(settings.operatorToken),
    tokenHint: settings.operatorToken ? settings.operatorToken.slice(-4) : null,
    network: settings.network ?? 'test',
  };
}

/**
 * The proxy URL is an origin (a path is dropped) on https, or plain http on loopback only: the
 * operator token must never cross a network in clear text. The token is the proxy's rule: 16+
 * printable characters.
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
  const previous = await loadSettings();
  const operatorToken =
    input.operatorToken === undefined || input.operatorToken.trim() === ''
      ? previous.operatorToken
      : input.operatorToken.trim();
  if (!operatorToken) throw new SettingsError('Enter the operator token (KASSA_OPERATOR_TOKEN of your proxy)');
  if (operatorToken.length < 16 || !/^[\x21-\x7e]+$/.test(operatorToken))
    throw new SettingsError('The operator token is at least 16 characters, with no spaces');
  const settings: Settings = { proxyUrl, operatorToken, network: input.network };
  await writeLocal(KEYS.settings, settings);
  return settingsView(settings);
}

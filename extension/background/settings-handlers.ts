/** The Settings tab's requests: the proxy, testing it, the pages' language. */
import type { Health } from '../../schemas/proxy-api.ts';
import type { LanguageChoice } from '../messages.ts';
import { leaveOtherProxy } from './account-handlers.ts';
import { forgetChains, listChains } from './chains.ts';
import { operatorCall } from './operator-api.ts';
import { storedSession } from './operator-session.ts';
import { proxyEnvironment } from './sandbox-account.ts';
import { loadSettings, saveSettings, settingsView } from './settings.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';
import type { UiHandlers } from './ui-requests.ts';

export const settingsHandlers = {
  'settings.get': async () => settingsView(await loadSettings()),
  'settings.save': async (request) => {
    const view = await saveSettings(request);
    forgetChains();
    await leaveOtherProxy(view.proxyUrl);
    return view;
  },
  'settings.test': async () => {
    // Signed in to this proxy: its health; else its public chain listing (all the wallet needs).
    const session = await storedSession();
    if (session && session.proxyUrl === (await loadSettings()).proxyUrl)
      return { kind: 'operator', health: await operatorCall<Health>('/api/health') };
    forgetChains();
    return { kind: 'public', chains: (await listChains()).length };
  },
  'settings.environment': () => proxyEnvironment(),
  'language.get': async () => (await readLocal<LanguageChoice>(KEYS.language)) ?? 'auto',
  'language.set': async ({ language }) => {
    await writeLocal(KEYS.language, language);
    return language;
  },
} satisfies Partial<UiHandlers>;

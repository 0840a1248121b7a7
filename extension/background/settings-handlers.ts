/** The Settings tab's requests: the proxy and its token, testing them, the pages' language. */
import type { Health } from '../../schemas/proxy-api.ts';
import type { LanguageChoice } from '../messages.ts';
import { forgetChains, listChains } from './chains.ts';
import { operatorCall } from './operator-api.ts';
import { proxyEnvironment } from './sandbox-account.ts';
import { loadSettings, saveSettings, settingsView } from './settings.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';
import type { UiHandlers } from './ui-requests.ts';

export const settingsHandlers = {
  'settings.get': async () => settingsView(await loadSettings()),
  'settings.save': async (request) => {
    const view = await saveSettings(request);
    forgetChains();
    return view;
  },
  'settings.test': async () => {
    // With a token entered for this proxy: its health; without: its public chain listing (all the wallet needs).
    if (settingsView(await loadSettings()).tokenSet)
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

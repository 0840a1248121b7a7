/**
 * The Manifest V3 manifest, as @crxjs/vite-plugin reads it: paths are sources (relative to extension/),
 * which the build replaces with their output files.
 *
 * - Both content scripts are self-contained scripts (crxjs `standaloneFiles`, see vite.config.ts) that
 *   run at document_start: `inpage` in the page's own world (the EIP-1193 provider and its EIP-6963
 *   announcement), `bridge` in the isolated world (a relay to the service worker). Neither is a web
 *   accessible resource, so a page cannot probe for the extension by URL.
 * - Host permissions cover http and https: the service worker calls the proxy the operator configures
 *   and the RPC URLs of the chains it lists, which are not known when the extension is built, and the
 *   content scripts run on every page a wallet may be used on (as any injected wallet's do).
 */
import packageJson from '../package.json' with { type: 'json' };
import { defineManifest } from '@crxjs/vite-plugin';
import { EXTENSION_KEY } from './extension-id.ts';

const WEB = ['http://*/*', 'https://*/*'];
const icons = { 16: 'icons/icon-16.png', 32: 'icons/icon-32.png', 48: 'icons/icon-48.png', 128: 'icons/icon-128.png' };

export default defineManifest({
  manifest_version: 3,
  // The store listing's name and description, in the widget's five languages (public/_locales/).
  name: '__MSG_extName__',
  description: '__MSG_extDescription__',
  default_locale: 'en',
  version: packageJson.version,
  // Fixes the development build's ID; tools/package-extension.ts leaves it out of the store's package.
  key: EXTENSION_KEY,
  minimum_chrome_version: '116',
  icons,
  action: { default_title: 'Kassa', default_popup: 'ui/popup.html', default_icon: icons },
  side_panel: { default_path: 'ui/sidepanel.html' },
  background: { service_worker: 'background/service-worker.ts', type: 'module' },
  permissions: ['storage', 'alarms', 'sidePanel'],
  host_permissions: WEB,
  content_scripts: [
    { matches: WEB, js: ['content/inpage.ts'], run_at: 'document_start', world: 'MAIN', all_frames: false },
    { matches: WEB, js: ['content/bridge.ts'], run_at: 'document_start', all_frames: false },
  ],
  content_security_policy: {
    extension_pages: "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  },
});

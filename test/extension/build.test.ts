/**
 * What `npm run build:extension` writes (dist/extension): a Manifest V3 extension with a fixed key
 * (so a fixed ID), the least permissions that its features need, self-contained content scripts that
 * run at document_start (the provider in the page's world), nothing a page can load from it, and no
 * source maps.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { EXTENSION_ID, EXTENSION_KEY, extensionIdFromKey } from '../../extension/extension-id.ts';
import { ensureExtensionBuilt, EXTENSION_DIST } from '../support/extension.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The fields of the built manifest.json that these tests read. */
interface BuiltManifest {
  manifest_version: number;
  key: string;
  permissions: string[];
  host_permissions: string[];
  web_accessible_resources?: unknown;
  externally_connectable?: unknown;
  content_security_policy: { extension_pages: string };
  background: { type?: string };
  action: { default_popup: string };
  side_panel: { default_path: string };
  icons: Record<string, string>;
  content_scripts: Array<{ js: string[]; world?: string; run_at: string; all_frames?: boolean; matches: string[] }>;
}

describe('extension: the build', () => {
  let manifest: BuiltManifest;
  before(() => {
    ensureExtensionBuilt();
    manifest = JSON.parse(readFileSync(join(EXTENSION_DIST, 'manifest.json'), 'utf8')) as BuiltManifest;
  });

  it('is Manifest V3 with a fixed key, whose ID is derived as Chromium derives it', async () => {
    assert.equal(manifest.manifest_version, 3);
    assert.equal(manifest.key, EXTENSION_KEY);
    // Chromium: SHA-256 of the DER public key, first 16 bytes, each hex digit 0–f written a–p.
    const digest = createHash('sha256').update(Buffer.from(EXTENSION_KEY, 'base64')).digest('hex').slice(0, 32);
    const expected = [...digest].map((digit) => String.fromCharCode(97 + parseInt(digit, 16))).join('');
    assert.equal(EXTENSION_ID, expected);
    assert.equal(await extensionIdFromKey(EXTENSION_KEY), expected);
    assert.match(EXTENSION_ID, /^[a-p]{32}$/);
  });

  it('asks for the permissions its features need and nothing a page could load', () => {
    assert.deepEqual([...manifest.permissions].sort(), ['alarms', 'sidePanel', 'storage']);
    assert.deepEqual(manifest.host_permissions, ['http://*/*', 'https://*/*']);
    assert.equal(
      manifest.web_accessible_resources,
      undefined,
      'no resource of the extension is reachable by pages (no fingerprinting by URL)',
    );
    assert.equal(manifest.externally_connectable, undefined, 'no page may message the service worker directly');
    assert.match(manifest.content_security_policy.extension_pages, /script-src 'self'; object-src 'none'/);
    assert.equal(manifest.background.type, 'module');
    assert.ok(statSync(join(EXTENSION_DIST, manifest.action.default_popup)).isFile());
    assert.ok(statSync(join(EXTENSION_DIST, manifest.side_panel.default_path)).isFile());
    assert.ok(statSync(join(EXTENSION_DIST, 'ui', 'approval.html')).isFile());
    for (const icon of Object.values(manifest.icons)) assert.ok(statSync(join(EXTENSION_DIST, icon)).isFile(), icon);
  });

  it('runs the provider in the page’s world and a relay in the isolated world, both self-contained at document_start', () => {
    const scripts = manifest.content_scripts;
    assert.equal(scripts.length, 2);
    const [inpage, bridge] = scripts;
    assert.equal(inpage!.world, 'MAIN');
    assert.equal(bridge!.world, undefined, 'the relay runs in the isolated world, where chrome.runtime is');
    for (const script of scripts) {
      assert.equal(script.run_at, 'document_start');
      assert.equal(script.all_frames, false);
      assert.deepEqual(script.matches, ['http://*/*', 'https://*/*']);
      assert.equal(script.js.length, 1);
      const code = readFileSync(join(EXTENSION_DIST, script.js[0]!), 'utf8');
      // One classic script: no module loader, no import of other files.
      assert.doesNotMatch(code, /\bimport\s*\(|^import\s|chrome\.runtime\.getURL/m);
      assert.ok(code.length < 64 * 1024, `${script.js[0]} is ${code.length} bytes`);
    }
    const provider = readFileSync(join(EXTENSION_DIST, inpage!.js[0]!), 'utf8');
    assert.match(provider, /eip6963:announceProvider/);
    assert.match(provider, /dev\.kassa\.wallet/);
  });

  it('ships no source maps', () => {
    const all = files(EXTENSION_DIST).map((path) => relative(EXTENSION_DIST, path));
    assert.deepEqual(
      all.filter((path) => path.endsWith('.map')),
      [],
    );
    for (const path of all.filter((name) => name.endsWith('.js')))
      assert.doesNotMatch(readFileSync(join(EXTENSION_DIST, path), 'utf8'), /sourceMappingURL=/, path);
  });
});

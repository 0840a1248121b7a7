/**
 * `npm run package:extension`: the zip for the Chrome Web Store, unpacked by another zip reader
 * (Info-ZIP's unzip), checked as the store checks it, and loaded into Chromium with its popup open.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXTENSION_ID } from '../../extension/extension-id.ts';
import { launchExtension, type LoadedExtension } from '../support/extension.ts';

const root = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const zip = join(root, 'dist', `kassa-extension-${version}.zip`);
const LANGUAGES = ['de', 'en', 'es', 'fr', 'nl'];
/** What the store asks for: 128 px for the listing, and the sizes the browser shows. */
const ICON_SIZES = ['16', '32', '48', '128'];

interface Manifest {
  name: string;
  description: string;
  default_locale?: string;
  key?: string;
  permissions: string[];
  icons: Record<string, string>;
  action: { default_popup: string };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): [number, number] {
  const data = readFileSync(path);
  assert.equal(data.subarray(1, 4).toString('latin1'), 'PNG', `${path} is a PNG`);
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

describe('package: the extension for the Chrome Web Store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-extension-zip-'));
  let manifest: Manifest;
  let extension: LoadedExtension | undefined;

  before(() => {
    const packaged = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools', 'package-extension.ts')], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(packaged.status, 0, packaged.stderr);
    const unzipped = spawnSync('unzip', ['-q', zip, '-d', dir], { encoding: 'utf8' });
    assert.equal(unzipped.status, 0, `unzip: ${unzipped.stderr}`);
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  });
  after(async () => {
    await extension?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written as dist/kassa-extension-<version>.zip, the same bytes each time', () => {
    const first = readFileSync(zip);
    const again = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools', 'package-extension.ts')], {
      cwd: root,
      env: { ...process.env, KASSA_EXTENSION_PREBUILT: '1' },
    });
    assert.equal(again.status, 0);
    assert.ok(readFileSync(zip).equals(first));
  });

  it('carries no development key and asks only for permissions its code uses', () => {
    assert.equal(manifest.key, undefined);
    const code = filesUnder(dir)
      .filter((path) => path.endsWith('.js'))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    for (const permission of manifest.permissions)
      assert.match(code, new RegExp(`chrome\\.${permission}\\.`), `${permission} is used`);
    assert.deepEqual(
      filesUnder(dir).filter((path) => path.endsWith('.map')),
      [],
    );
  });

  it('has an icon at every size the store asks for, each that size', () => {
    assert.deepEqual(Object.keys(manifest.icons).sort(), [...ICON_SIZES].sort());
    for (const size of ICON_SIZES)
      assert.deepEqual(pngSize(join(dir, manifest.icons[size]!)), [Number(size), Number(size)], `icon ${size}`);
  });

  it('has the listing’s name and description in the widget’s five languages', () => {
    assert.equal(manifest.name, '__MSG_extName__');
    assert.equal(manifest.description, '__MSG_extDescription__');
    assert.equal(manifest.default_locale, 'en');
    assert.deepEqual(readdirSync(join(dir, '_locales')).sort(), LANGUAGES);
    const descriptions = new Set<string>();
    for (const language of LANGUAGES) {
      const messages = JSON.parse(readFileSync(join(dir, '_locales', language, 'messages.json'), 'utf8')) as Record<
        string,
        { message: string }
      >;
      assert.equal(messages.extName?.message, 'Kassa', language);
      const description = messages.extDescription?.message ?? '';
      assert.ok(description.length > 0 && description.length <= 132, `${language}: ${description.length} characters`);
      descriptions.add(description);
    }
    assert.equal(descriptions.size, LANGUAGES.length, 'each language its own description');
  });

  it('loads in Chromium under an ID of its own, and its popup opens', async () => {
    assert.ok(existsSync(join(dir, manifest.action.default_popup)));
    extension = await launchExtension({ dir });
    assert.notEqual(extension.id, EXTENSION_ID, 'without the key, not the development ID');
    const page = await extension.openPage(manifest.action.default_popup);
    // Not configured yet: the popup opens on Settings.
    await page.getByRole('tab', { name: 'Settings', selected: true }).waitFor();
    const name = await extension.worker.evaluate(() => chrome.i18n.getMessage('extName'));
    assert.equal(name, 'Kassa', 'the name resolved from _locales');
    await page.close();
  });
});

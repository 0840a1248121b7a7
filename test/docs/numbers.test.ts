/**
 * The numbers and names the documents give a newcomer, held to what the code does: the package's size
 * in the README against `npm pack`'s (within 10 %), every README section a command's `--help` sends
 * readers to, and one name for the variable that holds the proxy's address in every example.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
/** What a newcomer reads: the README, the contributing guide and docs/. */
const documents = tracked.filter((path) => /^(README|CONTRIBUTING)\.md$|^docs\/.+\.md$/.test(path));
const headings = (markdown: string) => [...markdown.matchAll(/^#{2,4} (.+)$/gm)].map((match) => match[1]!.trim());
const tsx = join(root, 'node_modules', '.bin', 'tsx');

/** `npm pack`'s sizes in bytes, of the package as built (built first when dist/ lacks what it packs). */
function packedSizes(): { size: number; unpackedSize: number } {
  const files = (JSON.parse(read('package.json')) as { files: string[] }).files;
  if (files.some((file) => !existsSync(join(root, file)))) {
    const built = spawnSync(tsx, [join(root, 'tools', 'build-package.ts')], { cwd: root, stdio: 'inherit' });
    assert.equal(built.status, 0, 'npm run build:package');
  }
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as Array<{ size: number; unpackedSize: number }>;
  return packed!;
}

describe('repository: the numbers and names the documents give', () => {
  it('the package’s size in the README is npm pack’s, within 10 %', () => {
    const said = /`npm pack` makes `kassa-<version>\.tgz` \(about ([\d.]+) MB packed, ([\d.]+) MB unpacked/.exec(
      read('README.md'),
    );
    assert.ok(said, 'the README says how large the package is');
    const { size, unpackedSize } = packedSizes();
    for (const [what, stated, actual] of [
      ['packed', Number(said[1]), size / 1e6],
      ['unpacked', Number(said[2]), unpackedSize / 1e6],
    ] as const)
      assert.ok(
        Math.abs(stated - actual) <= actual * 0.1,
        `the README says ${stated} MB ${what}; npm pack gives ${actual.toFixed(2)} MB`,
      );
  });

  it('every README section a command’s --help names exists', () => {
    const sections = headings(read('README.md'));
    for (const command of [join(root, 'proxy', 'main.ts'), join(root, 'sandbox', 'cli.ts')]) {
      const help = execFileSync(tsx, [command, '--help'], { cwd: root, encoding: 'utf8' });
      const named = [...help.matchAll(/README's (?:section )?"([^"]+)"/g)].map((match) => match[1]!);
      for (const section of named) assert.ok(sections.includes(section), `${command} --help names "${section}"`);
    }
    // The help texts may name none; the proxy's does, and sends readers to its settings.
    assert.match(
      execFileSync(tsx, [join(root, 'proxy', 'main.ts'), '--help'], { cwd: root, encoding: 'utf8' }),
      /README's section "The proxy"/,
    );
  });

  it('the proxy’s address is KASSA_PROXY_URL in every example, never written out for a server to use', () => {
    const names = new Set<string>();
    const literal: string[] = [];
    for (const document of documents) {
      const text = read(document);
      // Variables that hold where the merchant's server reaches the proxy.
      for (const [name] of text.matchAll(/\bKASSA_(?:PROXY|URL|PROXY_\w+|BASE_URL)\b/g)) names.add(name);
      for (const [call] of text.matchAll(/createKassaClient\(\{ proxyUrl: [^,]+/g))
        if (!call.endsWith('process.env.KASSA_PROXY_URL!')) literal.push(`${document}: ${call}`);
    }
    assert.deepEqual([...names], ['KASSA_PROXY_URL']);
    assert.deepEqual(literal, []);
  });
});

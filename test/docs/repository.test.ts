import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
/** What a clone holds: the files git tracks (generated files, node_modules and dist/ are not among them). */
const tracked = new Set(
  execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean),
);
const trackedFolders = new Set([...tracked].flatMap((path) => (path.includes('/') ? [path.split('/')[0]!] : [])));
const isTracked = (path: string) => tracked.has(path) || [...tracked].some((file) => file.startsWith(`${path}/`));

/** The repository's own documents: what a newcomer reads. */
const documents = [...tracked].filter((path) => path.endsWith('.md') && !path.startsWith('test/'));

/** Relative link targets of a Markdown text (inline links; anchors and external URLs left out). */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.split('#')[0]!)
    .filter(Boolean);
}

describe('repository: what a fresh clone explains', () => {
  it('holds every document its Markdown files link to, and links to nothing outside the repository', () => {
    const broken: string[] = [];
    for (const document of documents) {
      for (const target of relativeLinks(readFileSync(join(root, document), 'utf8'))) {
        const path = normalize(join(dirname(document), decodeURIComponent(target))).replace(/\/$/, '');
        if (path.startsWith('..') || !isTracked(path)) broken.push(`${document} → ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('names no file outside the repository (such as ../shared) in its documents', () => {
    const outside = documents.filter((document) => /\.\.\/shared\b/.test(readFileSync(join(root, document), 'utf8')));
    assert.deepEqual(outside, []);
  });

  it('links the architecture and the contributing guide from the README', () => {
    const links = relativeLinks(readFileSync(join(root, 'README.md'), 'utf8'));
    assert.ok(links.includes('docs/architecture.md'), 'README links docs/architecture.md');
    assert.ok(links.includes('CONTRIBUTING.md'), 'README links CONTRIBUTING.md');
  });

  it("lists every top-level folder in the README's layout table, and only folders that exist", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('\n## ', readme.indexOf('## Layout') + 1));
    const listed = [...layout.matchAll(/^\| `([^`/]+)\/` +\|/gm)].map((match) => match[1]!).sort();
    assert.ok(listed.length > 0, 'the README has a layout table');
    assert.deepEqual(listed, [...trackedFolders].sort());
  });

  it('commits no build output: nothing under dist/, tmp/ or .tmp/, and no packed tarball', () => {
    const generated = [...tracked].filter((path) =>
      /^(dist|tmp|\.tmp|data)\/|\.tgz$|custom-elements\.json$/.test(path),
    );
    assert.deepEqual(generated, []);
  });
});

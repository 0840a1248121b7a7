/**
 * Files kept in every coding (server-kit/encoded-files.ts): the build's `.br` and `.gz` used as they
 * are when they decode to the file, made afresh when missing or wrong, a replaced file picked up, and
 * If-None-Match read as RFC 9110 has it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { EncodedFiles, loadEncodedFile, noneMatch, type EncodedFile } from '../../server-kit/encoded-files.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

const SCRIPT = Buffer.from(`export const greeting = ${JSON.stringify('hello, '.repeat(200))};\n`);

/** Each coding decodes to the file, and each has its own strong ETag. */
function assertCodings(file: EncodedFile, body: Buffer): void {
  assert.ok(Buffer.from(file.identity.body).equals(body));
  assert.ok(brotliDecompressSync(file.br.body).equals(body));
  assert.ok(gunzipSync(file.gzip.body).equals(body));
  assert.ok(file.br.body.length < body.length / 4 && file.gzip.body.length < body.length / 4);
  assert.match(file.identity.etag, /^"[\w-]{27}"$/);
  assert.equal(file.br.etag, `${file.identity.etag.slice(0, -1)}-br"`);
  assert.equal(file.gzip.etag, `${file.identity.etag.slice(0, -1)}-gz"`);
}

describe('files in every coding (server-kit/encoded-files.ts)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kassa-encoded-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("serves the build's .br and .gz as they are when they decode to the file", async () => {
    const path = join(dir, 'built.js');
    writeFileSync(path, SCRIPT);
    // Not what this module would make (a low quality), so that using them shows.
    const br = brotliCompressSync(SCRIPT, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    const gz = gzipSync(SCRIPT, { level: 1 });
    writeFileSync(`${path}.br`, br);
    writeFileSync(`${path}.gz`, gz);
    const file = await loadEncodedFile(path);
    assertCodings(file, SCRIPT);
    assert.ok(Buffer.from(file.br.body).equals(br));
    assert.ok(Buffer.from(file.gzip.body).equals(gz));
  });

  it('compresses what the build did not write, or wrote for another version of the file', async () => {
    const missing = join(dir, 'missing.js');
    writeFileSync(missing, SCRIPT);
    assertCodings(await loadEncodedFile(missing), SCRIPT);

    const stale = join(dir, 'stale.js');
    writeFileSync(stale, SCRIPT);
    writeFileSync(`${stale}.br`, brotliCompressSync(Buffer.from('export const old = 1;\n')));
    writeFileSync(`${stale}.gz`, 'not gzip at all');
    assertCodings(await loadEncodedFile(stale), SCRIPT);
  });

  it('loads a file once per version, and picks up a replaced one', async () => {
    const files = new EncodedFiles();
    const path = join(dir, 'kassa.js');
    assert.equal(await files.get(path), undefined);
    assert.equal(await files.get(dir), undefined, 'a directory is no file');
    writeFileSync(path, SCRIPT);
    utimesSync(path, 1_000, 1_000);
    const first = await files.get(path);
    assert.equal(await files.get(path), first, 'the same object while the file is unchanged');
    const next = Buffer.concat([SCRIPT, Buffer.from('export const more = 2;\n')]);
    writeFileSync(path, next);
    utimesSync(path, 2_000, 2_000);
    const second = (await files.get(path))!;
    assertCodings(second, next);
    assert.notEqual(second.identity.etag, first!.identity.etag);
  });

  it('If-None-Match: a list of tags, weak or strong, or *', () => {
    const etag = '"abc-br"';
    assert.equal(noneMatch(undefined, etag), false);
    assert.equal(noneMatch('"abc-br"', etag), true);
    assert.equal(noneMatch('W/"abc-br"', etag), true);
    assert.equal(noneMatch('"x", W/"abc-br" ,"y"', etag), true);
    assert.equal(noneMatch('*', etag), true);
    assert.equal(noneMatch('"abc"', etag), false, 'the identity coding’s tag is another representation');
    assert.equal(noneMatch('"abc-gz"', etag), false);
    assert.equal(noneMatch('abc-br', etag), false);
    assert.equal(noneMatch('', etag), false);
    const tag = fc.stringMatching(/^[\w-]{1,20}$/).map((opaque) => `"${opaque}"`);
    fc.assert(
      fc.property(fc.array(fc.tuple(tag, fc.boolean())), tag, (tags, ours) => {
        const header = tags.map(([value, weak]) => (weak ? `W/${value}` : value)).join(', ');
        assert.equal(
          noneMatch(header, ours),
          tags.some(([value]) => value === ours),
        );
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

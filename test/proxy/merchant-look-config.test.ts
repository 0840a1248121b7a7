import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../proxy/config.ts';
import { accentColours, contrast, FOCUS_GROUNDS } from '../../proxy/links/link-brand.ts';
import { LOGO_MAX_BYTES } from '../../proxy/links/link-settings.ts';
import { failsOn, valid } from '../support/config-env.ts';

describe('the merchant’s look on link pages (KASSA_MERCHANT_*)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-logo-'));
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(40)]);
  const named = { KASSA_MERCHANT_NAME: 'Café Lumen' };

  it('none by default: Kassa’s own look', () => {
    assert.deepEqual(loadConfig(valid()).merchant, { name: null, logo: null, accent: null });
  });

  it('a name, a logo file (inlined as a data: URL) and a colour (#rgb or #rrggbb)', () => {
    const config = loadConfig({
      ...valid(),
      ...named,
      KASSA_MERCHANT_LOGO: file('logo.png', png),
      KASSA_MERCHANT_COLOR: '#14D',
    });
    assert.deepEqual(config.merchant, {
      name: 'Café Lumen',
      logo: `data:image/png;base64,${png.toString('base64')}`,
      accent: '#1144dd',
    });
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 1"/>';
    assert.match(
      loadConfig({ ...valid(), ...named, KASSA_MERCHANT_LOGO: file('logo.svg', svg) }).merchant.logo!,
      /^data:image\/svg\+xml;base64,/,
    );
  });

  it('a bad colour stops the start, naming the setting', () => {
    for (const colour of ['blue', '#12345', '#gggggg', 'rgb(0,0,0)', '#1234567', '1f4fd1'])
      failsOn({ ...valid(), KASSA_MERCHANT_COLOR: colour }, 'KASSA_MERCHANT_COLOR', /#rrggbb or #rgb/);
  });

  it('a bad logo stops the start: a URL, a missing file, a folder, not an image, too big, or no name for it', () => {
    const logo = (value: string, extra: Record<string, string> = named) => ({
      ...valid(),
      ...extra,
      KASSA_MERCHANT_LOGO: value,
    });
    failsOn(logo('https://cdn.example/logo.png'), 'KASSA_MERCHANT_LOGO', /not a URL/);
    failsOn(logo(join(dir, 'missing.png')), 'KASSA_MERCHANT_LOGO', /cannot read .*missing\.png/);
    failsOn(logo(dir), 'KASSA_MERCHANT_LOGO', /not a file/);
    failsOn(logo(file('logo.txt', 'hello')), 'KASSA_MERCHANT_LOGO', /not a PNG, JPEG, GIF, WebP or SVG image/);
    failsOn(logo(file('page.html', '<html><svg></svg></html>')), 'KASSA_MERCHANT_LOGO', /not a PNG/);
    const big = file('big.png', Buffer.concat([png, Buffer.alloc(LOGO_MAX_BYTES)]));
    failsOn(logo(big), 'KASSA_MERCHANT_LOGO', new RegExp(`at most ${LOGO_MAX_BYTES} bytes`));
    failsOn(logo(file('ok.png', png), {}), 'KASSA_MERCHANT_LOGO', /needs KASSA_MERCHANT_NAME/);
    failsOn({ ...valid(), KASSA_MERCHANT_NAME: 'x'.repeat(81) }, 'KASSA_MERCHANT_NAME', /at most 80/);
    failsOn({ ...valid(), KASSA_MERCHANT_NAME: 'Tab\there' }, 'KASSA_MERCHANT_NAME', /control characters/);
  });

  it('fast-check: any colour gives button text of AA contrast and a focus ring of 3:1 in both themes', () => {
    const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);
    fc.assert(
      fc.property(hex, (colour) => {
        assert.equal(loadConfig({ ...valid(), KASSA_MERCHANT_COLOR: colour.toUpperCase() }).merchant.accent, colour);
        for (const theme of ['light', 'dark'] as const) {
          const colours = accentColours(colour, theme);
          assert.ok(contrast(colours.primary, colours.onPrimary) >= 4.5, `${colour} ${theme}: button text`);
          for (const ground of FOCUS_GROUNDS[theme])
            assert.ok(contrast(colours.focus, ground) >= 3, `${colour} ${theme}: focus ring on ${ground}`);
        }
      }),
    );
    assert.equal(contrast('#000000', '#ffffff'), 21);
  });
});

/**
 * The merchant's look on a link's page (link-settings.ts): the name or logo above the title, and the
 * accent colour on the buttons (the page's and `<kassa-checkout>`'s), the focus ring and a strip atop
 * the card. Text on the accent is black or white, whichever contrasts more (at least 4.58:1 for any
 * colour, above WCAG AA's 4.5); the focus ring keeps the accent only where it stands out 3:1 from
 * what it is drawn on in that theme (the card, the checkout's surface), else it is the text's colour.
 */
import { html } from 'hono/html';
import { DARK_PALETTE, LIGHT_PALETTE } from '../../lib/palette.ts';
import type { MerchantBrand } from './link-settings.ts';

/**
 * What a focus ring is drawn on in each theme: the page's card (`--surface` in its style) and the
 * checkout's own surface; and the page's text colour (`--text`).
 */
export const FOCUS_GROUNDS = {
  light: ['#ffffff', LIGHT_PALETTE.background],
  dark: ['#1b2130', DARK_PALETTE.background],
} as const;
const TEXT = { light: '#1d2433', dark: '#e6e9ef' } as const;

/** WCAG 2's relative luminance of `#rrggbb`. */
function luminance(colour: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = parseInt(colour.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG 2's contrast ratio of two colours (1 to 21). */
export function contrast(one: string, other: string): number {
  const [high, low] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (high! + 0.05) / (low! + 0.05);
}

/** The accent's colours in one theme: the button's, its text's, the focus ring's. */
export function accentColours(accent: string, theme: keyof typeof TEXT) {
  const onAccent = contrast(accent, '#ffffff') >= contrast(accent, '#000000') ? '#ffffff' : '#000000';
  const focus = FOCUS_GROUNDS[theme].every((ground) => contrast(accent, ground) >= 3) ? accent : TEXT[theme];
  return { primary: accent, onPrimary: onAccent, focus };
}

const properties = (colours: ReturnType<typeof accentColours>) =>
  `--primary:${colours.primary};--on-primary:${colours.onPrimary};--focus:${colours.focus}`;

/** The style the merchant's look adds to the page's: '' for none (Kassa's own look). */
export function brandStyle(brand: MerchantBrand): string {
  const parts: string[] = [];
  if (brand.name)
    // A fixed box for the logo: the page does not move when the image decodes.
    parts.push(
      '.merchant{margin:0 0 1rem;font-weight:600;color:var(--text)}.logo{display:block;width:12rem;max-width:100%;height:3rem;object-fit:contain;object-position:left center}',
    );
  if (brand.accent)
    parts.push(
      `:root{${properties(accentColours(brand.accent, 'light'))}}`,
      `@media (prefers-color-scheme:dark){:root{${properties(accentColours(brand.accent, 'dark'))}}}`,
      'main{border-top:.4rem solid var(--primary)}:focus-visible{outline-color:var(--focus)}',
      'kassa-checkout{--kassa-color-primary:var(--primary);--kassa-color-on-primary:var(--on-primary);--kassa-color-focus:var(--focus)}',
    );
  return parts.join('\n');
}

/** Above the title: the logo (named by the merchant's name), or the name in words; nothing without a name. */
export function brandHeader(brand: MerchantBrand) {
  if (!brand.name) return '';
  if (brand.logo)
    return html`<p class="merchant">
      <img class="logo" src="${brand.logo}" alt="${brand.name}" width="192" height="48" />
    </p>`;
  return html`<p class="merchant">${brand.name}</p>`;
}

/**
 * Kassa's colours, light and dark: what the elements (widget/shared/theme.ts) and the proxy's own
 * pages (the operators' sign-in page) are drawn with, so that they look alike. Each name is a public
 * custom property `--kassa-color-<name>` an element reads with this as its fallback.
 */
export const LIGHT_PALETTE = {
  background: '#ffffff',
  text: '#1d2433',
  muted: '#596273',
  border: '#d0d5dd',
  primary: '#1d4ed8',
  'on-primary': '#ffffff',
  success: '#067647',
  danger: '#b42318',
  focus: '#1d4ed8',
  'badge-background': '#fff3c4',
  'badge-text': '#6b4f00',
};

export type Palette = typeof LIGHT_PALETTE;

export const DARK_PALETTE: Palette = {
  background: '#17191e',
  text: '#e6e8ec',
  muted: '#a8afbd',
  border: '#3a3f4b',
  primary: '#93b4fd',
  'on-primary': '#0b1220',
  success: '#75e0a7',
  danger: '#fda29b',
  focus: '#93b4fd',
  'badge-background': '#4a3b00',
  'badge-text': '#ffe58a',
};

/** The font, corner radius and spacing every Kassa surface starts from. */
export const FONT_STACK = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
export const RADIUS = '0.75rem';
export const SPACING = '1rem';

import { css, unsafeCSS, type CSSResult } from 'lit';
import { DARK_PALETTE, FONT_STACK, LIGHT_PALETTE, RADIUS, SPACING, type Palette } from '../../lib/palette.ts';

/*
 * The colours every Kassa element is drawn with (lib/palette.ts, shared with the proxy's pages). Each
 * is a public custom property `--kassa-color-<name>` a page may set (for both schemes, or inside its
 * own dark-mode rule); the element reads the private `--_<name>`, which falls back to the light or
 * dark default.
 */
const palette = (colors: Palette): CSSResult =>
  unsafeCSS(
    Object.entries(colors)
      .map(([name, value]) => `--_${name}:var(--kassa-color-${name},${value});`)
      .join(''),
  );

/**
 * Design tokens for a Kassa element's shadow root: colours, light by default, dark with
 * `theme="dark"` or, unless `theme="light"`, when the system prefers dark; plus the font, radius and
 * spacing (`--kassa-font-family`, `--kassa-font-size`, `--kassa-radius`, `--kassa-spacing`).
 */
export const tokens = css`
  :host {
    ${palette(LIGHT_PALETTE)}
    color-scheme: light;
    --_font: var(--kassa-font-family, ${unsafeCSS(FONT_STACK)});
    --_size: var(--kassa-font-size, 1rem);
    --_radius: var(--kassa-radius, ${unsafeCSS(RADIUS)});
    --_space: var(--kassa-spacing, ${unsafeCSS(SPACING)});
  }
  :host([theme='dark']) {
    ${palette(DARK_PALETTE)}
    color-scheme: dark;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${palette(DARK_PALETTE)}
      color-scheme: dark;
    }
  }
`;

/** The surface, buttons, badge and busy indicator that Kassa elements share. */
export const controls = css`
  :host {
    display: block;
    font-family: var(--_font);
    font-size: var(--_size);
    line-height: 1.5;
    color: var(--_text);
  }
  :host([hidden]) {
    display: none;
  }
  .surface {
    box-sizing: border-box;
    /* The host's resting size (each element's own styles), reserved from the first render. */
    min-block-size: inherit;
    background: var(--_background);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: var(--_space);
  }
  button {
    box-sizing: border-box;
    width: 100%;
    min-height: 2.75rem;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.5em;
    font: inherit;
    font-weight: 600;
    padding: 0.6em 1.2em;
    border: 1px solid transparent;
    border-radius: calc(var(--_radius) * 0.67);
    background: var(--_primary);
    color: var(--_on-primary);
    cursor: pointer;
  }
  button:hover {
    filter: brightness(1.08);
  }
  button[aria-disabled='true'] {
    cursor: progress;
    filter: saturate(0.6);
  }
  button:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  .badge {
    display: inline-block;
    font-size: 0.75em;
    font-weight: 600;
    letter-spacing: 0.02em;
    padding: 0.1em 0.6em;
    border-radius: 999px;
    background: var(--_badge-background);
    color: var(--_badge-text);
  }
  .spinner,
  .surface[aria-busy='true']::after {
    inline-size: 1em;
    block-size: 1em;
    border: 2px solid currentColor;
    border-inline-end-color: transparent;
    border-radius: 50%;
    animation: spin 0.8s linear infinite;
  }
  /* The skeleton's busy sign, over the space the content will take: nothing moves when it goes. */
  .surface[aria-busy='true'] {
    position: relative;
  }
  .surface[aria-busy='true']::after {
    content: '';
    position: absolute;
    inset: 0;
    margin: auto;
  }
  @keyframes spin {
    to {
      transform: rotate(1turn);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .spinner,
    .surface[aria-busy='true']::after {
      animation-duration: 2.4s;
    }
  }
`;

/** The live status line under an element's main action, and its success and danger tones. */
export const statusStyles = css`
  .status {
    display: flex;
    align-items: center;
    gap: 0.5em;
    margin: 0.75em 0;
    min-height: 1.5em;
  }
  .status:empty {
    margin: 0.25em 0;
    min-height: 0;
  }
  .success {
    color: var(--_success);
    font-weight: 600;
  }
  .danger {
    color: var(--_danger);
  }
`;

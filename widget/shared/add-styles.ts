import type { CSSResult, LitElement } from 'lit';

/** Adds a chunk's styles to an element's shadow root, next to the element's own (constructable, so CSP allows them). */
export function addStyles(host: Pick<LitElement, 'renderRoot'>, styles: CSSResult): void {
  const root = host.renderRoot as ShadowRoot;
  if (styles.styleSheet && !root.adoptedStyleSheets.includes(styles.styleSheet))
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, styles.styleSheet];
}

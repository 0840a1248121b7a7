/**
 * A QR code drawn with lean-qr as one SVG path, dark on a white quiet zone in both themes, as phone
 * cameras expect. Only chunks import it (the checkout's "Pay with your phone", the on-ramp's "Continue
 * on your phone"), so lean-qr stays out of kassa.js and out of phones' downloads.
 */
import { generate } from 'lean-qr/nano';
import { html, nothing, type TemplateResult } from 'lit';
import { isLoopbackHost } from '../../lib/url-rules.ts';

/** The QR code's modules as one SVG path, a run of dark modules per rectangle, and its size. */
export function qrPath(text: string): [path: string, size: number] {
  const code = generate(text);
  let path = '';
  for (let y = 0; y < code.size; y++) {
    for (let x = 0; x < code.size;) {
      if (!code.get(x, y)) {
        x++;
        continue;
      }
      const start = x;
      while (code.get(x, y)) x++;
      path += `M${start} ${y}h${x - start}v1h${start - x}z`;
    }
  }
  return [path, code.size];
}

/** The QR code of `text` as an image (`part="qr"`) named `label` for assistive technology. */
export function qrCode(text: string, label: string): TemplateResult {
  const [path, size] = qrPath(text);
  return html`<svg part="qr" role="img" aria-label=${label} viewBox="-4 -4 ${size + 8} ${size + 8}">
    <rect x="-4" y="-4" width="${size + 8}" height="${size + 8}" fill="#fff" />
    <path d=${path} fill="#000" />
  </svg>`;
}

/** The addresses already warned about: one console warning each, not one per render. */
const warned = new Set<string>();

/**
 * Under the QR code of an address on this very computer (127.0.0.1, localhost: a local demo): a phone
 * cannot open it, so the element says so (`words`, with {host}), and warns the page's developer.
 */
export function loopbackNote(element: Element, url: string, words: string): TemplateResult | typeof nothing {
  const { host, hostname } = new URL(url);
  if (!isLoopbackHost(hostname)) return nothing;
  if (!warned.has(url)) {
    warned.add(url);
    console.warn(
      `Kassa <${element.localName}>: the QR code leads to ${url}, on this computer: a phone cannot open it. Serve the shop and its Kassa proxy at an address phones reach (the demo: npm start -- --lan).`,
    );
  }
  return html`<p part="qr-note" class="qr-note" role="note">${words.replace('{host}', host)}</p>`;
}

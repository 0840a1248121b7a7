/**
 * A link's QR code, to print on an invoice or a sign or to send: dark modules on a white quiet zone
 * of four modules, as phone cameras expect, whatever the theme of the page it is put on.
 */
import { generate } from 'lean-qr';
import { toPngBuffer } from 'lean-qr/extras/node_export';
import { toSvgSource } from 'lean-qr/extras/svg';

const QUIET_ZONE = 4;
/** Pixels per module: a link's code is about 40 modules across, so about 400 pixels, sharp on paper at 5 cm. */
const PNG_SCALE = 8;

/** The QR code of `url` as a standalone SVG document, scalable, drawn at the PNG's size by default. */
export function qrSvg(url: string): string {
  const code = generate(url);
  const side = (code.size + 2 * QUIET_ZONE) * PNG_SCALE;
  return toSvgSource(code, {
    on: '#000',
    off: '#fff',
    pad: QUIET_ZONE,
    width: side,
    height: side,
    xmlDeclaration: true,
  });
}

/** The QR code of `url` as a PNG image. */
export function qrPng(url: string): Uint8Array {
  return toPngBuffer(generate(url), {
    on: [0, 0, 0, 255],
    off: [255, 255, 255, 255],
    pad: QUIET_ZONE,
    scale: PNG_SCALE,
  });
}

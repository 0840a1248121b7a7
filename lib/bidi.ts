/**
 * Unicode's bidirectional formatting characters: the embeddings and overrides (U+202A–U+202E), the
 * isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). Invisible, they reorder the text
 * around them: "\u202Eevil" reads "live", and whatever a page prints after it can read backwards.
 * Names Kassa accepts may not carry them (schemas/orders.ts), and the extension shows any it is given
 * as visible codes.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** `text` cut at each bidi control character, each one as its own piece. */
export const splitBidiControls = (text: string): string[] =>
  text.split(new RegExp(`(${BIDI_CONTROLS.source})`, 'u')).filter(Boolean);

/** `U+202E`: how a control character is written where it must be seen. */
export const codePointName = (character: string): string =>
  `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

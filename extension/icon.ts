/**
 * Kassa's mark: a white K on the primary blue, as an SVG data URI (EIP-6963 `info.icon`). The PNGs in
 * public/icons/ (the toolbar and the extensions page) are the same drawing, rasterised.
 */
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="#1d4ed8"/>' +
  '<path d="M30 22v52M30 50 60 22M40 42l22 32" stroke="#fff" stroke-width="10" stroke-linecap="round" fill="none"/></svg>';

export const KASSA_ICON = `data:image/svg+xml;base64,${btoa(SVG)}`;

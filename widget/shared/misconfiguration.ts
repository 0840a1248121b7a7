/**
 * What a shop's developer must change when an element cannot work as set up: the codes its
 * `kassa-error` carries (kind `misconfigured`), and the console warning naming the setting, in a
 * chunk fetched only when it happens (the customer sees the element's own friendly words).
 */

const SETTINGS = {
  'proxy-attribute': 'Set the element’s proxy attribute to your Kassa proxy’s origin (https://pay.shop.example).',
  'checkout-attribute':
    'Set checkout to a checkout your server created (POST /api/checkouts); for an amount the customer chooses, set reference instead, with KASSA_OPEN_AMOUNT on the proxy.',
  'network-attribute': 'Set the element’s network attribute to test or main.',
  'open-amount-off':
    'Set KASSA_OPEN_AMOUNT on the proxy (for example "1..500 EUR") to let customers choose the amount, or give the element a checkout.',
  'currency-not-accepted':
    'Set the element’s currency attribute to the currency of KASSA_OPEN_AMOUNT on the proxy, or leave it out.',
  'return-url-not-allowed':
    'Add this page to KASSA_RETURN_URLS on the proxy, or set the element’s return-url to one of them.',
  'onramp-off': 'Set KASSA_ONRAMP_COINS on the proxy (for example "EUR:eEUR") to sell stablecoins.',
} as const;

/** Which setting a misconfigured element needs changed: the `code` of its `kassa-error`. */
export type MisconfigurationCode = keyof typeof SETTINGS;

/** The console warning for the page's developer: what is wrong, and the setting to change. */
export function warnMisconfigured(element: Element, code: MisconfigurationCode, message: string): void {
  console.warn(`Kassa <${element.localName}>: ${message}. ${SETTINGS[code]} (kassa-error code "${code}")`);
}

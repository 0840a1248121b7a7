/**
 * A payment's status token: the capability to read one payment's status, 32 random bytes in
 * base64url (43 characters). The proxy makes and checks them; the widget reads one back from the
 * return URL. Anything else in their place is not worth a look-up.
 */
export const STATUS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const isStatusToken = (value: string): boolean => STATUS_TOKEN_PATTERN.test(value);

/** The query parameter the proxy adds to the return URL, so the page the bank returns to finds its payment. */
export const STATUS_QUERY_PARAM = 'kassa_status';

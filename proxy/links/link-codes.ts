import { randomBytes } from 'node:crypto';

/**
 * A link's code: 144 bits from the system's random source, base64url (24 characters). It names the
 * link in its URL and carries nothing else: no amount, no name, nothing about the customer.
 */
export const newLinkCode = (): string => randomBytes(18).toString('base64url');

const LINK_CODE = /^[A-Za-z0-9_-]{24}$/;

/** Whether a string could be a code at all, so that anything else is refused before the store is asked. */
export const isLinkCode = (value: string): boolean => LINK_CODE.test(value);

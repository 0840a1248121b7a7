/**
 * Whether this is a computer, as far as paying goes: a fine pointer that hovers. Phones and tablets
 * pay in the bank's or the wallet's app already, so they are offered no QR code to move to a phone.
 */
export const desktop = (): boolean => matchMedia('(pointer: fine) and (hover: hover)').matches;

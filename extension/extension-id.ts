/**
 * The extension's identity. Chromium derives an extension's ID from the public key in the manifest's
 * `key`: the first 128 bits of SHA-256 over the DER-encoded SubjectPublicKeyInfo, written with the
 * letters a–p for the hex digits 0–f. A fixed key gives the unpacked extension the same ID on every
 * machine, so a merchant can name `chrome-extension://<id>` in KASSA_ALLOWED_ORIGINS if ever needed.
 * Only the public half is kept: an unpacked extension is never signed, and a store listing gets its own.
 */
export const EXTENSION_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA03ngS5ptYirk4odR6WCBLebMQh0SVHmxceLCL1wg17Xw72YVPHlL26DpVOdqIFOnOPbeyEjMAFvRPD2gUuMbSFFcEV4mXQUlBSLaQ7YJEGLunk1PR1E9lE8b3mGlu7YJgmzU00x5ow911A2zOss348ZpegSYq6ZYqYtj8ZrHmpqTyYs2lqQLoNv/D/P3wwqLFI4LEuYdJT20VcHaN8wuFYed0lV3hAFTlqK5MALAY7LHe0JuYtZyjk/otGsWETUxxdEi+RGW6Bpy7tcQgEERfwjQ5oAIPbAY3/05KFQg6l3gxXagpVmGv+eM5TZk1tWJBY9sNh0cGhRiw9v+yNOWewIDAQAB';

/** What Chromium will call the extension built with EXTENSION_KEY (tests check the derivation). */
export const EXTENSION_ID = 'dicdceeeacbbpanhcdiaicmdjhodhpie';

/** The ID Chromium derives from a manifest `key` (base64 DER public key). */
export async function extensionIdFromKey(key: string): Promise<string> {
  const der = Uint8Array.from(atob(key), (char) => char.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', der));
  return [...digest.slice(0, 16)]
    .map((byte) => String.fromCharCode(97 + (byte >> 4)) + String.fromCharCode(97 + (byte & 15)))
    .join('');
}

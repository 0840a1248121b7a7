import { ensureDebianPackage } from './debian-package.ts';

/** The Chromium every browser test drives: `KASSA_CHROMIUM`, else Debian's `/usr/bin/chromium`. */
export const ensureChromium = (): string =>
  ensureDebianPackage(['/usr/bin/chromium', '/usr/bin/chromium-browser'], 'chromium', 'KASSA_CHROMIUM');

/**
 * The link page's one script (`link-page/`: it starts the payment and shows `<kassa-checkout>` for
 * it), served under its content's hash and cached for a year; built as http/page-script.ts says.
 */
import { pageScript, servedPageScript } from '../http/page-script.ts';

export const LINK_PAGE_SCRIPT = pageScript('link-page.js', new URL('../../link-page/main.ts', import.meta.url));

/** The script, read or built once per process: `/links/scripts/link-<hash>.js`. */
export const linkPageScript = servedPageScript(LINK_PAGE_SCRIPT, (hash) => `/links/scripts/link-${hash}.js`);

/**
 * The sign-in page's script and stylesheet, each served under its content's hash (cached for a year).
 * The script (`operator-page/`, with @simplewebauthn/browser) is built as http/page-script.ts says.
 */
import { contentHash, pageScript, servedPageScript } from '../../http/page-script.ts';
import { PAGE_STYLE } from './page-style.ts';

/** The script (`operator-page/`), built beside the proxy's bundle as `operator-page.js`. */
export const OPERATOR_PAGE_SCRIPT = pageScript(
  'operator-page.js',
  new URL('../../../operator-page/main.ts', import.meta.url),
);

export interface PageAsset {
  /** `/operator/scripts/operator-<hash>.js`, `/operator/styles/operator-<hash>.css` */
  path: string;
  body: string;
  contentType: string;
}

export interface PageAssets {
  script: PageAsset;
  style: PageAsset;
}

const script = servedPageScript(OPERATOR_PAGE_SCRIPT, (hash) => `/operator/scripts/operator-${hash}.js`);
const style: PageAsset = {
  path: `/operator/styles/operator-${contentHash(PAGE_STYLE)}.css`,
  body: PAGE_STYLE,
  contentType: 'text/css; charset=utf-8',
};

/** The page's assets, the script read or built once per process. */
export async function pageAssets(): Promise<PageAssets> {
  return { script: { ...(await script()), contentType: 'text/javascript; charset=utf-8' }, style };
}

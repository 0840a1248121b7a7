/**
 * The shell every sign-in page shares: its language (with a switcher to the others), its stylesheet
 * and one script from this proxy, the words the script shows, and a Content-Security-Policy that
 * allows nothing else: no inline script, no other origin but the company's identity provider for
 * the SSO form.
 */
import { html, raw } from 'hono/html';
import { scriptJson } from '../../http/script-json.ts';
import { PAGE_LANGUAGES, WORDS, type PageLanguage, type Words } from './words/index.ts';
import type { PageAssets } from './page-assets.ts';

export type Html = ReturnType<typeof html>;

/** What a page is: the view the script wires up (`body[data-view]`). */
export type PageView = 'signin' | 'account' | 'invite' | 'setup' | 'device' | 'counter';

export interface PageFrame {
  language: PageLanguage;
  words: Words;
  /** The page's path and query, for the language switcher's links (the query is kept, `lang` replaced). */
  url: URL;
  assets: PageAssets;
  /** The session's CSRF token, sent as X-Kassa-CSRF on every write; null when nobody is signed in. */
  csrfToken: string | null;
}

/**
 * The policy: this proxy's script and stylesheet only, requests to this proxy only, Trusted Types
 * required (the script never writes HTML), forms to this proxy or (the SSO form's redirect) the
 * identity provider's origin.
 */
export function pageCsp(providerOrigin: string | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self'${providerOrigin ? ` ${providerOrigin}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types',
  ].join('; ');
}

function languageLinks(frame: PageFrame): Html {
  return html`<nav aria-label="${frame.words.language}">
    <ul>
      ${PAGE_LANGUAGES.map((language) => {
        const url = new URL(frame.url);
        url.searchParams.set('lang', language);
        return html`<li>
          <a
            href="${url.pathname}${url.search}"
            hreflang="${language}"
            lang="${language}"
            data-language
            ${language === frame.language ? raw('aria-current="true"') : ''}
            >${WORDS[language].languageName}</a
          >
        </li>`;
      })}
    </ul>
  </nav>`;
}

/** A whole page around `content`. */
export function page(frame: PageFrame, view: PageView, heading: string, content: Html): Html {
  const { words, assets } = frame;
  return html`<!doctype html>
    <html lang="${frame.language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        ${frame.csrfToken ? html`<meta name="kassa-csrf" content="${frame.csrfToken}" />` : ''}
        <title>${heading} · ${words.title}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${assets.style.path}" />
        <script type="module" src="${assets.script.path}"></script>
      </head>
      <body data-view="${view}">
        <header>
          <p class="brand">${words.title}</p>
          ${languageLinks(frame)}
        </header>
        <main id="main">${content}</main>
        <script type="application/json" id="kassa-words">
          ${raw(scriptJson(words))}
        </script>
      </body>
    </html>`;
}

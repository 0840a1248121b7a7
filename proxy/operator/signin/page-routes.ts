/**
 * The pages the proxy serves its operators: `/operator` (signing in, then the person's sessions,
 * passkeys and tokens), `/operator/invite#…` and `/operator/setup#…` (a link's first passkey),
 * `/operator/device?user_code=…` (approving the extension), `/operator/counter` (counter mode, a till's
 * tablet or phone), in the language the browser prefers or
 * the one chosen, light or dark as the system is; and their script and stylesheet.
 */
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { userCodeSchema } from '../../../schemas/operators.ts';
import { NotFoundError } from '../../domain/domain-errors.ts';
import { clientRateLimit } from '../../http/middleware/client-rate-limit.ts';
import type { ApiOperations } from '../../http/openapi/operation.ts';
import { RATE_LIMITED, STORE_DOWN } from '../../http/openapi/problems.ts';
import type { ProxyServices } from '../../services.ts';
import type { OperatorEnv } from '../operator-auth.ts';
import { displayUserCode } from '../device-grant.ts';
import { can } from '../permissions.ts';
import { counterUnavailableView, counterView } from './counter-view.ts';
import { ownCredentials } from './own-credentials.ts';
import { pageAssets } from './page-assets.ts';
import { page, pageCsp, type Html, type PageView } from './page-layout.ts';
import { accountView, deviceView, linkView, signinView } from './page-views.ts';
import { pageLanguage, WORDS, type Words } from './words/index.ts';

const LANGUAGE_COOKIE = 'kassa_lang';
const YEAR_SECONDS = 365 * 86_400;

/** What renders a sign-in page: its language, the session's CSRF token, the policy. */
export type PageRenderer = (
  c: Context,
  view: PageView,
  make: (words: Words, language: keyof typeof WORDS) => { heading: string; content: Html },
  options?: { status?: 200 | 400 | 403 | 404 | 429 | 502; csrfToken?: string | null },
) => Promise<Response>;

export function pageRenderer({ config }: ProxyServices): PageRenderer {
  const providerOrigin = config.oidc ? new URL(config.oidc.issuer).origin : null;
  return async (c, view, make, options = {}) => {
    const chosen = c.req.query('lang');
    const language = pageLanguage(chosen ?? getCookie(c, LANGUAGE_COOKIE), c.req.header('Accept-Language'));
    if (chosen === language)
      setCookie(c, LANGUAGE_COOKIE, language, {
        path: '/operator',
        sameSite: 'Lax',
        secure: true,
        maxAge: YEAR_SECONDS,
      });
    const words = WORDS[language];
    const { heading, content } = make(words, language);
    const frame = {
      language,
      words,
      url: new URL(c.req.url),
      assets: await pageAssets(),
      csrfToken: options.csrfToken ?? null,
    };
    c.header('Content-Security-Policy', pageCsp(providerOrigin));
    c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    // Not no-referrer: with it, a form's POST (the SSO button) would carry `Origin: null`, which the
    // proxy's own-Origin check refuses. Nothing leaves for another site either way.
    c.header('Referrer-Policy', 'same-origin');
    c.header('Vary', 'Accept-Language, Cookie');
    return c.html(page(frame, view, heading, content), options.status ?? 200);
  };
}

/** The code in `?user_code=`, as the extension shows it, when it is one Kassa could have given. */
function userCodeOf(c: Context): string | null {
  const parsed = userCodeSchema.safeParse(c.req.query('user_code') ?? '');
  return parsed.success ? parsed.data : null;
}

export function pageRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, signin, store, operators } = services;
  const app = new Hono<OperatorEnv>();
  const render = pageRenderer(services);
  const limit = clientRateLimit({ name: 'reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  // Browsers refuse passkeys on an IP address: without a public URL, this machine's pages move to
  // localhost (a link's `#token` goes along: browsers keep a fragment across a redirect).
  const onLocalhost = createMiddleware(async function onLocalhost(c, next) {
    const url = new URL(c.req.url);
    if (config.publicUrl !== null || (url.hostname !== '127.0.0.1' && url.hostname !== '[::1]')) return next();
    url.hostname = 'localhost';
    return c.redirect(url.href, 307);
  });
  const reads = [limit, onLocalhost] as const;
  const sso = signin.sso !== null;

  /** Signing in first, coming back to `returnTo`. */
  const signinFirst = (c: Context, returnTo: string) =>
    render(c, 'signin', (words, language) => ({
      heading: words.signinHeading,
      content: signinView({ words, language }, { sso, returnTo }),
    }));

  app.get('/operator', ...reads, async (c) => {
    const session = await signin.sessions.current(c);
    if (!session) return signinFirst(c, '/operator');
    const { principal } = session;
    const [own, passkeys] = await Promise.all([
      ownCredentials(store.operators, principal),
      store.operators.passkeysOf(principal.operatorId),
    ]);
    return render(
      c,
      'account',
      (words, language) => ({
        heading: words.main,
        content: accountView({ words, language }, principal, { ...own, passkeys }),
      }),
      { csrfToken: session.csrfToken },
    );
  });

  for (const link of ['invite', 'setup'] as const)
    app.get(`/operator/${link}`, ...reads, (c) =>
      render(c, link, (words, language) => ({
        heading: link === 'setup' ? words.setupHeading : words.inviteHeading,
        content: linkView({ words, language }, link),
      })),
    );

  app.get('/operator/device', ...reads, async (c) => {
    const userCode = userCodeOf(c);
    const session = await signin.sessions.current(c);
    if (!session) {
      const shown = userCode ? displayUserCode(userCode) : undefined;
      return render(c, 'signin', (words, language) => ({
        heading: words.signinHeading,
        content: signinView(
          { words, language },
          { sso, returnTo: shown ? `/operator/device?user_code=${shown}` : '/operator/device', userCode: shown },
        ),
      }));
    }
    const device = userCode ? await operators.deviceGrant.waiting(userCode) : undefined;
    return render(
      c,
      'device',
      (words, language) => ({
        heading: words.deviceHeading,
        content: deviceView({ words, language }, { userCode, device }),
      }),
      { csrfToken: session.csrfToken, status: userCode && !device ? 404 : 200 },
    );
  });

  app.get('/operator/counter', ...reads, async (c) => {
    const session = await signin.sessions.current(c);
    if (!session) return signinFirst(c, '/operator/counter');
    const { principal } = session;
    const terms = config.counterAmount;
    const why = !terms ? 'off' : can(principal.role, 'counter:take') ? undefined : 'role';
    return render(
      c,
      'counter',
      (words, language) => ({
        heading: words.counterHeading,
        content:
          terms && !why
            ? counterView({ words, language }, terms, principal.name)
            : counterUnavailableView({ words, language }, why ?? 'off'),
      }),
      { csrfToken: session.csrfToken, status: why === 'role' ? 403 : why === 'off' ? 404 : 200 },
    );
  });

  for (const kind of ['script', 'style'] as const)
    app.get(`/operator/${kind}s/:file`, async (c) => {
      const asset = (await pageAssets())[kind];
      if (asset.path !== c.req.path)
        throw new NotFoundError('No such file: the page that asked for it is older than this proxy');
      c.header('Content-Type', asset.contentType);
      c.header('Cache-Control', 'public, max-age=31536000, immutable');
      return c.body(asset.body);
    });

  return app;
}

const PAGE = { description: 'The page (text/html)', text: { contentType: 'text/html' } };
/** On 127.0.0.1 or [::1] without KASSA_PUBLIC_URL: the same page on localhost, where passkeys work. */
const TO_LOCALHOST = {
  description: 'The same page on `localhost` (browsers refuse passkeys on an IP address)',
  headers: { Location: { description: 'The page’s address on localhost', required: true } },
};
const PAGE_ACCESS = {
  auth: 'public',
  because:
    'it is the page a person signs in on; what it shows of an account comes from the session cookie, which only its own browser holds.',
} as const;
const pageOperation = (operationId: string, summary: string, description: string) => ({
  operationId,
  summary,
  description,
  audience: 'operator' as const,
  access: PAGE_ACCESS,
  responses: { 200: PAGE, 307: TO_LOCALHOST },
  errors: { 429: RATE_LIMITED, 503: STORE_DOWN },
});

const asset = (operationId: string, what: string, contentType: string, example: string) => ({
  operationId,
  summary: `The operators’ page’s ${what}`,
  description: 'Named after its content’s hash, so cached for a year.',
  audience: 'operator' as const,
  access: { auth: 'public' as const, because: `it is the page’s own ${what}, the same for everyone.` },
  // The name changes with every build: the example is one such name (an older page's file is a 404).
  params: { file: { description: 'The file, as the page names it', example } },
  responses: { 200: { description: `The ${what}`, text: { contentType } } },
  errors: { 404: 'No such file' },
});

export const pageOperations: ApiOperations = {
  'GET /operator': pageOperation(
    'operatorPage',
    'The operators’ page',
    'Signing in (a passkey, or the company’s provider when set up); signed in, the person’s sessions, passkeys and personal API tokens. `?lang=en|de|fr|es|nl` picks the language (kept in a cookie); else the browser’s.',
  ),
  'GET /operator/invite': pageOperation(
    'invitationPage',
    'An invitation',
    'Opened as `/operator/invite#<token>` (the token after `#` never reaches a server’s logs): the invited person makes their passkey, which activates their account.',
  ),
  'GET /operator/setup': pageOperation(
    'setupPage',
    'The first admin’s setup',
    'Opened as `/operator/setup#<token>`, the link the proxy prints at first start: the first admin says who they are and makes their passkey.',
  ),
  'GET /operator/device': {
    ...pageOperation(
      'deviceApprovalPage',
      'Approve a device sign-in',
      'Opened as `verification_uri_complete` (`?user_code=…`): after signing in, the person sees the code, the device’s name, when and from where it asked, and approves or denies it (approveDevice).',
    ),
    query: {
      user_code: { description: 'The code the extension shows (`XXXX-XXXX`)', schema: userCodeSchema.optional() },
    },
    responses: {
      200: PAGE,
      307: TO_LOCALHOST,
      404: { description: 'Signed in, and no device sign-in waits with this code', text: { contentType: 'text/html' } },
    },
  },
  'GET /operator/counter': {
    ...pageOperation(
      'counterPage',
      'The counter',
      'Counter mode, for a till’s tablet or phone: signed in (as on the operators’ page) with counter:take, the operator types an amount (within KASSA_COUNTER) and a note, and the page shows the QR code the customer pays with on their phone (createCounterPayment), following the payment live (followCounterPayment) until it is paid, then is ready for the next customer. `?lang=` as on the operators’ page.',
    ),
    responses: {
      200: PAGE,
      307: TO_LOCALHOST,
      403: { description: 'Signed in, with a role that lacks counter:take', text: { contentType: 'text/html' } },
      404: { description: 'Signed in, and counter mode is off (KASSA_COUNTER)', text: { contentType: 'text/html' } },
    },
  },
  'GET /operator/scripts/{file}': asset(
    'operatorPageScript',
    'script',
    'text/javascript',
    'operator-3f9a1c2e7b4d5a60.js',
  ),
  'GET /operator/styles/{file}': asset('operatorPageStyle', 'stylesheet', 'text/css', 'operator-8c1d2e3f4a5b6c7d.css'),
};

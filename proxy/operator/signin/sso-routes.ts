/**
 * Signing in with the company's OpenID Connect provider (when KASSA_OIDC_ISSUER is set): the sign-in
 * page's form sends the browser to the provider, which sends it back to the callback. Both answer a
 * browser navigating, so a refusal is the sign-in page saying why, in the person's language.
 */
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { clientRateLimit } from '../../http/middleware/client-rate-limit.ts';
import type { ApiOperations } from '../../http/openapi/operation.ts';
import { RATE_LIMITED, STORE_DOWN } from '../../http/openapi/problems.ts';
import type { ProxyServices } from '../../services.ts';
import type { OperatorEnv } from '../operator-auth.ts';
import { pageRenderer } from './page-routes.ts';
import { signinView } from './page-views.ts';
import { relyingParty } from './relying-party.ts';
import { SigninLimitedError } from './signin-limits.ts';
import { ownOrigin } from './signin-routes.ts';
import { SsoRefusedError, type SsoRefusal } from './sso-accounts.ts';
import { CALLBACK_PATH, safeReturnPath } from './sso-signin.ts';
import { fill } from './words/index.ts';

export function ssoRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, signin } = services;
  const app = new Hono<OperatorEnv>();
  const sso = signin.sso;
  if (!sso) return app;
  const render = pageRenderer(services);
  const starts = clientRateLimit({ name: 'signin', limit: config.createRateLimit, trustProxy: config.trustProxy });
  const refused = (c: Context, returnTo: string, notice: { refusal: SsoRefusal } | { seconds: number }, status?: 502) =>
    render(
      c,
      'signin',
      (words, language) => ({
        heading: words.signinHeading,
        content: signinView(
          { words, language },
          {
            sso: true,
            returnTo,
            notice: 'refusal' in notice ? words.sso[notice.refusal] : fill(words.limited, notice),
          },
        ),
      }),
      { status: status ?? ('refusal' in notice ? (notice.refusal === 'failed' ? 400 : 403) : 429) },
    );

  app.post('/operator/sso', ownOrigin(config.publicUrl), starts, async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const returnTo = safeReturnPath(form.get('return_to') ?? undefined);
    try {
      const url = await sso.start(c, relyingParty(config.publicUrl, c.req.url), returnTo);
      return c.redirect(url.href, 303);
    } catch (error) {
      services.logger.warn('the identity provider cannot be reached', { error });
      return refused(c, returnTo, { refusal: 'failed' }, 502);
    }
  });

  app.get(CALLBACK_PATH, async (c) => {
    try {
      const { returnTo } = await sso.finish(c, relyingParty(config.publicUrl, c.req.url));
      // Back from the provider's site, the browser would not send the new SameSite=Strict cookie on a
      // redirect: this page of ours moves it on instead, and that navigation is our own.
      c.header('Cache-Control', 'no-store');
      c.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
      return c.html(
        html`<!doctype html>
          <html lang="en">
            <head>
              <meta charset="utf-8" />
              <meta http-equiv="refresh" content="0;url=${returnTo}" />
              <title>Kassa</title>
            </head>
            <body>
              <p><a href="${returnTo}">Continue</a></p>
            </body>
          </html>`,
      );
    } catch (error) {
      if (error instanceof SsoRefusedError) return refused(c, '/operator', { refusal: error.refusal });
      if (error instanceof SigninLimitedError) return refused(c, '/operator', { seconds: error.retryAfterSeconds });
      throw error;
    }
  });
  return app;
}

const SIGNIN_PAGE = { contentType: 'text/html', description: 'The sign-in page, saying why in the person’s language' };

export const ssoOperations: ApiOperations = {
  'POST /operator/sso': {
    operationId: 'startSsoSignin',
    summary: 'Sign in with the company’s provider',
    description:
      'The sign-in page’s form (`application/x-www-form-urlencoded`, `return_to`): the browser is sent to the OpenID Connect provider with a fresh state, nonce and PKCE challenge (S256), kept in the store under a `__Host-kassa_sso` cookie (SameSite=Lax, 5 minutes). Only when KASSA_OIDC_ISSUER is set.',
    audience: 'operator',
    access: {
      auth: 'public',
      because: 'it starts a sign-in: nobody is signed in yet, and the provider decides who the person is.',
    },
    responses: {
      303: {
        description: 'To the provider',
        headers: { Location: { description: 'The provider’s authorization endpoint', required: true } },
      },
      502: { description: 'The provider cannot be reached', text: SIGNIN_PAGE },
    },
    errors: {
      403: 'The form was not sent from this Kassa’s own sign-in page (its Origin)',
      429: RATE_LIMITED,
      503: STORE_DOWN,
    },
  },
  'GET /operator/sso/callback': {
    operationId: 'finishSsoSignin',
    summary: 'Back from the company’s provider',
    description:
      'The redirect URI to register at the provider (`<KASSA_PUBLIC_URL>/operator/sso/callback`). The code is exchanged with its PKCE verifier; `state` and the ID token’s `nonce` must be those of the trip this browser started; the person must have an e-mail in KASSA_OIDC_ALLOWED_DOMAINS, and a role from KASSA_OIDC_ROLES (an account is made on first sign-in; its role follows the claim).',
    audience: 'operator',
    access: {
      auth: 'public',
      because: 'the provider sends the browser back here; the state, nonce and code are the proof.',
    },
    responses: {
      200: {
        description: 'Signed in: a page that moves on to the operators’ page (with the session cookie)',
        text: { contentType: 'text/html' },
      },
      403: { description: 'Refused: outside the allowed domains, no mapped role, suspended …', text: SIGNIN_PAGE },
      429: { description: 'Too many failed sign-ins from this address lately', text: SIGNIN_PAGE },
      400: {
        description:
          'The sign-in did not complete: a state, nonce or code that does not match, a trip not started in this browser, or the provider failed',
        text: SIGNIN_PAGE,
      },
    },
    errors: { 503: STORE_DOWN },
  },
};

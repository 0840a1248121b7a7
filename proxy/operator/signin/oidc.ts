/**
 * The company's OpenID Connect provider, through openid-client: authorization code with PKCE (S256),
 * `state` and `nonce` checked, the ID token verified against the provider's keys, and the userinfo
 * answer read for claims a provider leaves out of its ID tokens. Discovery is made on first use and
 * kept; a failed one is tried again next time. Every call has the proxy's upstream deadline and a
 * size bound.
 */
import * as client from 'openid-client';
import { readBoundedText } from '../../../server-kit/bounded-body.ts';
import type { OidcSettings } from './signin-settings.ts';

/** An identity provider's answers (discovery, keys, tokens, userinfo) are small; past this one is refused. */
const ANSWER_MAX_BYTES = 256 * 1024;

/** What the provider says of the person, as sign-in needs it. */
export interface OidcIdentity {
  /** `<issuer> <sub>`: unique to this person at this provider, whatever their e-mail becomes. */
  subject: string;
  email: string | null;
  /** False only when the provider says the address is not verified. */
  emailVerified: boolean;
  name: string | null;
  /** The role claim's values (one string, or a list of them). */
  claimValues: string[];
}

/** What a trip to the provider must be finished with, kept in the ceremony (never in the browser). */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The request as openid-client makes it (its types and Node's fetch's differ only in how they name a body). */
const send = (url: string, init: unknown) => fetch(url, init as RequestInit);

const boundedFetch: client.CustomFetch = async (url, options) => {
  const response = await send(url, options);
  const text = await readBoundedText(response, ANSWER_MAX_BYTES);
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
};

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : [];

export class OidcClient {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly timeoutMs: number,
  ) {}

  /** The provider's page to send the browser to, with fresh checks to keep for its return. */
  async authorizationUrl(redirectUri: string): Promise<{ url: URL; checks: OidcChecks }> {
    const configuration = await this.discovered();
    const checks = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, checks };
  }

  /**
   * The person the provider sent back (`callbackUrl`, the redirect as received): the code exchanged
   * with its PKCE verifier, `state` and the ID token's `nonce` matched, the ID token verified, and
   * userinfo's claims added (its `sub` must be the ID token's). Throws on any mismatch.
   */
  async identify(callbackUrl: URL, checks: OidcChecks): Promise<OidcIdentity> {
    const configuration = await this.discovered();
    const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
    const claims: Record<string, unknown> = { ...userinfo, ...idToken };
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null;
    return {
      subject: `${configuration.serverMetadata().issuer} ${idToken.sub}`,
      email,
      emailVerified: claims.email_verified !== false,
      name: typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 100) : null,
      claimValues: strings(claims[this.settings.roleClaim]),
    };
  }

  private discovered(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(
        new URL(this.settings.issuer),
        this.settings.clientId,
        undefined,
        client.ClientSecretBasic(this.settings.clientSecret),
        {
          timeout: Math.ceil(this.timeoutMs / 1000),
          [client.customFetch]: boundedFetch,
          // Plain http is accepted at start only for a provider on loopback (signin-settings.ts).
          execute: new URL(this.settings.issuer).protocol === 'http:' ? [client.allowInsecureRequests] : [],
        },
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }
}

/**
 * A real OpenID Connect provider for tests (oidc-provider) on 127.0.0.1:0: one confidential client,
 * PKCE required, people with `email`, `email_verified`, `name` and `groups` claims. Instead of a
 * login form, the test says who signs in next (`signsInNext`), and consent is given at once, as a
 * company's provider does for its own applications; everything else is the provider's real protocol.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type KoaContextWithOIDC } from 'oidc-provider';

export interface Person {
  email: string;
  email_verified?: boolean;
  name: string;
  groups: string[];
}

/** The provider's records, in this process's memory. */
function memoryAdapter() {
  const records = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}
    private key = (id: string) => `${this.model}:${id}`;
    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      records.set(this.key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
    }
    async find(id: string) {
      const record = records.get(this.key(id));
      return record && record.expiresAt > Date.now() ? record.payload : undefined;
    }
    async findByUid(uid: string) {
      return [...records.values()].find((record) => record.payload.uid === uid)?.payload;
    }
    async findByUserCode(userCode: string) {
      return [...records.values()].find((record) => record.payload.userCode === userCode)?.payload;
    }
    async consume(id: string) {
      const record = records.get(this.key(id));
      if (record) record.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      records.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, record] of records) if (record.payload.grantId === grantId) records.delete(key);
    }
  };
}

export interface IdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The people it knows, by their `sub`; a test may change their claims between sign-ins. */
  people: Map<string, Person>;
  /** Who the next sign-in at the provider is (its session remembers them after). */
  signsInNext(sub: string): void;
  /** Registers the client's redirect URI (the proxy's callback), once the proxy is listening. */
  register(redirectUri: string): void;
  /**
   * Changes what passes between the browser and the provider, as someone in between would: the
   * authorization request coming in, and where the provider sends the browser back to. Null: nothing.
   */
  tamper: { request?: (url: URL) => void; redirect?: (location: URL) => void } | null;
  stop(): Promise<void>;
}

/** Starts the provider on a port of its own; its client is registered once its redirect URI is known. */
export async function startIdentityProvider(): Promise<IdentityProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'kassa';
  const clientSecret = randomBytes(24).toString('base64url');
  const people = new Map<string, Person>();
  let next = '';
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const self: Pick<IdentityProvider, 'tamper'> = { tamper: null };
  server.on('request', (request, response) => {
    if (!handle) {
      response.statusCode = 503;
      return response.end();
    }
    const { tamper } = self;
    if (tamper?.request) {
      const url = new URL(request.url!, issuer);
      tamper.request(url);
      request.url = `${url.pathname}${url.search}`;
    }
    if (tamper?.redirect) {
      const setHeader = response.setHeader.bind(response);
      response.setHeader = (name, value) => {
        if (name.toLowerCase() !== 'location') return setHeader(name, value);
        const location = new URL(String(value), issuer);
        tamper.redirect!(location);
        return setHeader(name, location.href);
      };
    }
    handle(request, response);
  });
  const register = (redirectUri: string) => {
    handle = providerFor(redirectUri);
  };
  const providerFor = (redirectUri: string) => {
    const provider = new Provider(issuer, {
      adapter: memoryAdapter(),
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
          id_token_signed_response_alg: 'ES256',
        },
      ],
      jwks: { keys: [{ ...signingKey, kid: 'test', alg: 'ES256', use: 'sig' }] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
      findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => {
        const person = people.get(sub);
        return person && { accountId: sub, claims: async () => ({ sub, ...person }) };
      },
    });
    const callback = provider.callback();
    return (request: IncomingMessage, response: ServerResponse) => {
      if (!request.url?.startsWith('/interaction/')) return void callback(request, response);
      void (async () => {
        const details = await provider.interactionDetails(request, response);
        if (details.prompt.name === 'login')
          return provider.interactionFinished(request, response, { login: { accountId: next } });
        // Consent: the company's own application gets what it asked for.
        const grant = new provider.Grant({ accountId: details.session!.accountId, clientId });
        grant.addOIDCScope(String(details.params.scope));
        await provider.interactionFinished(
          request,
          response,
          { consent: { grantId: await grant.save() } },
          {
            mergeWithLastSubmission: true,
          },
        );
      })().catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    };
  };
  return Object.assign(self, {
    issuer,
    clientId,
    clientSecret,
    people,
    signsInNext: (sub: string) => {
      next = sub;
    },
    register,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

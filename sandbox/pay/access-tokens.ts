import { randomBytes, randomUUID } from 'node:crypto';
import { sign, verify } from 'hono/jwt';
import type { SandboxClock } from '../clock.ts';
import type { ApiKey } from './key-registry.ts';

export const TOKEN_LIFETIME_SECONDS = 3600;
const ISSUER = 'kassa-sandbox-pay';

/** HS256 access tokens, signed with a key that lives and dies with this emulator instance. */
export class AccessTokens {
  private readonly signingKey = randomBytes(32).toString('base64url');

  constructor(
    private readonly clock: SandboxClock,
    private readonly lifetimeSeconds = TOKEN_LIFETIME_SECONDS,
  ) {}

  get lifetime(): number {
    return this.lifetimeSeconds;
  }

  issue(key: ApiKey): Promise<string> {
    const iat = Math.floor(this.clock.now() / 1000);
    return sign(
      { iss: ISSUER, sub: key.keyId, env: key.environment, iat, exp: iat + this.lifetimeSeconds, jti: randomUUID() },
      this.signingKey,
      'HS256',
    );
  }

  /** The key id a token was issued to, or why it is not acceptable. Expiry follows the sandbox clock. */
  async verify(token: string): Promise<{ ok: true; keyId: string } | { ok: false; error: string }> {
    let payload: Record<string, unknown>;
    try {
      payload = await verify(token, this.signingKey, { alg: 'HS256', iss: ISSUER, exp: false, iat: false, nbf: false });
    } catch {
      return { ok: false, error: 'Invalid access token' };
    }
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= this.clock.now())
      return { ok: false, error: 'Access token expired' };
    if (typeof payload.sub !== 'string') return { ok: false, error: 'Invalid access token' };
    return { ok: true, keyId: payload.sub };
  }
}

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SandboxClock } from '../clock.ts';
import type { Environment } from '../../schemas/pay.ts';
import type { KeySummary } from '../../schemas/sandbox.ts';

/** An API key as the dashboard holds it. Secrets are kept only as hashes: shown once, never recoverable. */
export interface ApiKey {
  keyId: string;
  name: string;
  description: string;
  destination: string;
  webhookUrl: string | null;
  environment: Environment;
  /** Live keys start inactive until business verification is approved. */
  active: boolean;
  revoked: boolean;
  expiresAt: number | null;
  secretHashes: Set<string>;
}

export type KeyLookup =
  { ok: true; key: ApiKey } | { ok: false; reason: 'unknown' | 'revoked' | 'inactive' | 'expired' };

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');

export class KeyRegistry {
  private readonly keys = new Map<string, ApiKey>();

  constructor(private readonly clock: SandboxClock) {}

  create(input: {
    environment: Environment;
    webhookUrl: string | null;
    name?: string | undefined;
    description?: string | undefined;
    destination?: string | undefined;
    expiresAt: string | null;
    /** A secret chosen beforehand (the emulator's ready key in a compose file); else a new one. */
    clientSecret?: string | undefined;
  }): { key: ApiKey; clientSecret: string } {
    const keyId = `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const clientSecret = input.clientSecret ?? this.newSecret(input.environment);
    const key: ApiKey = {
      keyId,
      name: input.name ?? `${input.environment} key`,
      description: input.description ?? '',
      destination: input.destination ?? 'GB33BUKB20201555555555',
      webhookUrl: input.webhookUrl,
      environment: input.environment,
      active: input.environment === 'sandbox',
      revoked: false,
      expiresAt: input.expiresAt === null ? null : Date.parse(input.expiresAt),
      secretHashes: new Set([hash(clientSecret)]),
    };
    this.keys.set(keyId, key);
    return { key, clientSecret };
  }

  get(keyId: string): ApiKey | undefined {
    return this.keys.get(keyId);
  }

  /** Finds the key a client secret belongs to, and whether it may obtain a token now. */
  bySecret(clientSecret: string): KeyLookup {
    const digest = hash(clientSecret);
    for (const key of this.keys.values()) {
      if (key.secretHashes.has(digest)) return this.usable(key);
    }
    return { ok: false, reason: 'unknown' };
  }

  /** Whether a key (found by id, as a token names it) may be used now. */
  usable(key: ApiKey): KeyLookup {
    if (key.revoked) return { ok: false, reason: 'revoked' };
    if (!key.active) return { ok: false, reason: 'inactive' };
    if (key.expiresAt !== null && key.expiresAt <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, key };
  }

  rotate(key: ApiKey): string {
    const clientSecret = this.newSecret(key.environment);
    key.secretHashes.add(hash(clientSecret));
    return clientSecret;
  }

  owns(key: ApiKey, clientSecret: string): boolean {
    return key.secretHashes.has(hash(clientSecret));
  }

  /** Ends one secret of a key; the others keep working. */
  expireSecret(key: ApiKey, clientSecret: string): void {
    key.secretHashes.delete(hash(clientSecret));
  }

  summary(key: ApiKey): KeySummary {
    return {
      keyId: key.keyId,
      name: key.name,
      description: key.description,
      destination: key.destination,
      webhookUrl: key.webhookUrl,
      environment: key.environment,
      active: key.active,
      revoked: key.revoked,
      expiresAt: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
      secrets: key.secretHashes.size,
    };
  }

  list(): ApiKey[] {
    return [...this.keys.values()];
  }

  private newSecret(environment: Environment): string {
    return `cs_${environment}_${randomBytes(24).toString('base64url')}`;
  }
}

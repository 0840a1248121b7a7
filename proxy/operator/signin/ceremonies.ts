import type { CeremonyPurpose, CeremonyRecord, SigninCeremonies } from '../../state/signin-ceremonies.ts';
import { hashSecret } from '../credentials.ts';

/** Time to finish a passkey prompt or a trip to the identity provider. */
export const CEREMONY_TTL_MS = 5 * 60_000;

/**
 * Ceremonies under way, in the store (any instance finishes what another started), each named by a
 * key only its browser holds (a challenge, a cookie) and kept under that key's hash, taken once.
 */
export class Ceremonies {
  constructor(
    private readonly store: SigninCeremonies,
    private readonly now: () => number = Date.now,
  ) {}

  start(key: string, purpose: CeremonyPurpose, data: CeremonyRecord['data']): Promise<void> {
    return this.store.put({ keyHash: hashSecret(key), purpose, data, expiresAt: this.now() + CEREMONY_TTL_MS });
  }

  /** What the ceremony keeps, once, if it is one of this purpose that has not expired. */
  async finish(key: string, purpose: CeremonyPurpose): Promise<CeremonyRecord['data'] | undefined> {
    const ceremony = await this.store.take(hashSecret(key), this.now());
    return ceremony?.purpose === purpose ? ceremony.data : undefined;
  }
}

import type { Redis } from 'ioredis';
import type { CeremonyRecord, SigninCeremonies } from '../signin-ceremonies.ts';
import { guarded } from './faults.ts';
import type { RedisKeys } from './keys.ts';

/** Sign-in ceremonies for a fleet: one key each, expiring by itself, taken with GETDEL (once, fleet-wide). */
export class RedisSigninCeremonies implements SigninCeremonies {
  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {}

  put(ceremony: CeremonyRecord): Promise<void> {
    return guarded(async () => {
      await this.redis.set(
        this.key.signinCeremony(ceremony.keyHash),
        JSON.stringify(ceremony),
        'PX',
        Math.max(1, ceremony.expiresAt - Date.now()),
      );
    });
  }

  take(keyHash: string, now: number): Promise<CeremonyRecord | undefined> {
    return guarded(async () => {
      const raw = await this.redis.getdel(this.key.signinCeremony(keyHash));
      const ceremony = raw ? (JSON.parse(raw) as CeremonyRecord) : undefined;
      return ceremony && ceremony.expiresAt > now ? ceremony : undefined;
    });
  }
}

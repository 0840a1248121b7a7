import type { CeremonyRecord, SigninCeremonies } from '../signin-ceremonies.ts';
import { parse } from './keys.ts';
import { RedisRecords } from './records.ts';

/** Sign-in ceremonies for a fleet: one key each, expiring by itself, taken with GETDEL (once, fleet-wide). */
export class RedisSigninCeremonies extends RedisRecords implements SigninCeremonies {
  async put(ceremony: CeremonyRecord): Promise<void> {
    const keep = Math.max(1, ceremony.expiresAt - Date.now());
    await this.redis.set(this.key.signinCeremony(ceremony.keyHash), JSON.stringify(ceremony), 'PX', keep);
  }

  async take(keyHash: string, now: number): Promise<CeremonyRecord | undefined> {
    const ceremony = parse<CeremonyRecord>(await this.redis.getdel(this.key.signinCeremony(keyHash)));
    return ceremony && ceremony.expiresAt > now ? ceremony : undefined;
  }
}

import { ConflictError } from '../../domain/domain-errors.ts';
import { publicOrigin } from '../../payments/return-url.ts';

/** Where passkeys are made and used: the origin operators open, and its host as WebAuthn's RP ID. */
export interface RelyingParty {
  origin: string;
  rpId: string;
}

/** Passkeys cannot be used: the proxy does not know the address operators open it at. */
export class NoPublicUrlError extends ConflictError {
  override name = 'NoPublicUrlError';

  constructor() {
    super(
      'Passkeys need the address operators open Kassa at: set KASSA_PUBLIC_URL (on this machine, open http://localhost:<port>/operator)',
    );
  }
}

/**
 * KASSA_PUBLIC_URL, or on loopback the request's own origin (the demo, tests). A passkey is bound to
 * its RP ID, so a proxy that moves to another host needs its operators' passkeys made again. Browsers
 * refuse an IP address as RP ID: on this machine, `localhost` rather than 127.0.0.1.
 */
export function relyingParty(configured: string | null, requestUrl: string): RelyingParty {
  const origin = publicOrigin(configured, requestUrl);
  if (!origin) throw new NoPublicUrlError();
  return { origin, rpId: new URL(origin).hostname };
}

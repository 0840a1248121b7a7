/**
 * The operator's device session: the token the device sign-in (device-signin.ts) got for one person,
 * kept in `chrome.storage.local` with the proxy URL that issued it and sent nowhere else; who that
 * person is and what they may do (the proxy's `GET /api/operator/me`, read again as pages open); a
 * sign-in under way (its device code, in memory-only session storage); and why the last session
 * ended, until the next sign-in. Pages see it only as `OperatorSessionView`, never the token, and are
 * told of every change (session-ports.ts).
 */
import type { OperatorMe, Role } from '../../schemas/operators.ts';
import type { OperatorSessionView, SessionEnd } from '../operator-messages.ts';
import { loadSettings, SettingsError } from './settings.ts';
import { KEYS, readLocal, readSession, writeLocal, writeSession } from './storage.ts';

export interface DeviceSession {
  /** The proxy that issued the token: the only place it is ever sent. */
  proxyUrl: string;
  token: string;
  operator: { name: string; email: string; role: Role };
  /** When the token stops working at the latest (ms since the epoch), as the proxy said. */
  expiresAt: number;
  /** The proxy's last answer to who this device is (role, permissions, the credential's expiry). */
  me?: Pick<OperatorMe, 'operatorId' | 'name' | 'email' | 'role' | 'permissions' | 'credential'>;
}

/** A device sign-in under way: the code shown, and what polling needs. */
export interface PendingSignIn {
  proxyUrl: string;
  deviceCode: string;
  userCode: string;
  /** The proxy's page for this code (`verification_uri_complete`), opened in a tab. */
  verificationUri: string;
  /** Seconds between polls; `slow_down` adds 5. */
  interval: number;
  expiresAt: number;
}

type Notice = NonNullable<OperatorSessionView['notice']>;

/** No device session for the configured proxy: the operator views need the person to sign in. */
export class SignedOutError extends SettingsError {
  readonly status = 401;
}

const listeners = new Set<() => void>();

/** Called after every change of the session, the sign-in under way or the notice. */
export function onSessionChange(listener: () => void): void {
  listeners.add(listener);
}

function changed(): void {
  for (const listener of listeners) listener();
}

export const storedSession = (): Promise<DeviceSession | undefined> => readLocal<DeviceSession>(KEYS.operatorSession);

export const pendingSignIn = (): Promise<PendingSignIn | undefined> => readSession<PendingSignIn>(KEYS.deviceSignIn);

/** Keeps (or, with undefined, forgets) the sign-in under way. */
export async function keepPendingSignIn(pending: PendingSignIn | undefined): Promise<void> {
  if (pending) await writeSession(KEYS.deviceSignIn, pending);
  else await chrome.storage.session.remove(KEYS.deviceSignIn);
  changed();
}

/** The session, when there is one for the proxy URL now configured and its token has not expired. */
async function boundSession(): Promise<DeviceSession | undefined> {
  const [settings, session] = await Promise.all([loadSettings(), storedSession()]);
  if (!session || session.proxyUrl !== settings.proxyUrl) return undefined;
  if (Date.now() >= session.expiresAt) {
    await endSession({ reason: 'refused', detail: null }, session.token);
    return undefined;
  }
  return session;
}

/** The proxy and this device's token for it, for the operator views' calls; else a clear error. */
export async function requireOperator(): Promise<{ proxyUrl: string; token: string }> {
  const { proxyUrl } = await loadSettings();
  if (!proxyUrl) throw new SettingsError('Kassa is not set up yet: enter your proxy URL in Settings');
  const session = await boundSession();
  if (!session)
    throw new SignedOutError('Signed out: sign in again in Settings (the operator views need your sign-in)');
  return { proxyUrl, token: session.token };
}

/** A new session: the notice of the last one's end goes. */
export async function beginSession(session: DeviceSession): Promise<void> {
  await writeLocal(KEYS.operatorSession, session);
  await chrome.storage.local.remove(KEYS.sessionNotice);
  changed();
}

/**
 * Ends the session (the token forgotten) with the reason to show, or none when the person signed
 * out. `failedToken`: the token a call was refused with; a session signed in since is kept.
 */
export async function endSession(
  notice: { reason: SessionEnd; detail: string | null } | null,
  failedToken?: string,
): Promise<void> {
  const session = await storedSession();
  if (failedToken !== undefined && session?.token !== failedToken) return;
  await chrome.storage.local.remove(KEYS.operatorSession);
  await setNotice(notice && { ...notice, proxyUrl: session?.proxyUrl ?? null });
}

/** The reason the last sign-in or session ended, shown until the next sign-in; null clears it. */
export async function setNotice(notice: Notice | null): Promise<void> {
  if (notice) await writeLocal(KEYS.sessionNotice, notice);
  else await chrome.storage.local.remove(KEYS.sessionNotice);
  changed();
}

/** Keeps the proxy's answer to who this device is; the pages hear of it when the role or permissions moved. */
export async function rememberMe(token: string, me: OperatorMe): Promise<void> {
  const session = await storedSession();
  if (session?.token !== token) return;
  const { operatorId, name, email, role, permissions, credential } = me;
  const moved =
    session.me?.operatorId !== operatorId ||
    session.me.role !== role ||
    session.me.permissions.join() !== permissions.join() ||
    session.me.credential.idleExpiresAt !== credential.idleExpiresAt;
  await writeLocal(KEYS.operatorSession, {
    ...session,
    me: { operatorId, name, email, role, permissions, credential },
  });
  if (moved) changed();
}

/** The session as the pages see it. */
export async function sessionView(): Promise<OperatorSessionView> {
  // The settings first: reading them drops a shared token of an earlier version, with its notice.
  const { proxyUrl } = await loadSettings();
  const [session, pending, notice] = await Promise.all([
    boundSession(),
    pendingSignIn(),
    readLocal<Notice>(KEYS.sessionNotice),
  ]);
  const signingIn = pending && pending.proxyUrl === proxyUrl && Date.now() < pending.expiresAt ? pending : undefined;
  return {
    state: session ? 'signed-in' : signingIn ? 'signing-in' : 'signed-out',
    proxyUrl: proxyUrl ?? null,
    notice: session ? null : (notice ?? null),
    signIn: signingIn
      ? { userCode: signingIn.userCode, verificationUri: signingIn.verificationUri, expiresAt: signingIn.expiresAt }
      : null,
    operator: session
      ? {
          operatorId: session.me?.operatorId ?? null,
          name: session.me?.name ?? session.operator.name,
          email: session.me?.email ?? session.operator.email,
          role: session.me?.role ?? session.operator.role,
          permissions: session.me?.permissions ?? [],
          expiresAt: session.me?.credential.expiresAt ?? new Date(session.expiresAt).toISOString(),
          idleExpiresAt: session.me?.credential.idleExpiresAt ?? null,
        }
      : null,
  };
}

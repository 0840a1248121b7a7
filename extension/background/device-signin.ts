/**
 * The device sign-in (OAuth 2.0 Device Authorization Grant, RFC 8628), as GitHub's CLI signs in: the
 * worker asks the proxy for a code (`POST /operator/device/code`), the page shows its user code, the
 * person approves that code on the proxy's page (signed in there as themselves), and the worker polls
 * `POST /operator/device/token` every `interval` seconds until it gets the device token, once: 5 s
 * more after each `slow_down`; stopped, with the reason for the page, on `access_denied`,
 * `expired_token` or any other refusal. A poll that does not reach the proxy is tried again at the
 * next interval. The polling outlives the popup, which closes as the approval page's tab opens: the
 * sign-in under way is kept in session storage and taken up again when the worker starts anew.
 */
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import {
  DEVICE_GRANT_TYPE,
  deviceCodeSchema,
  deviceTokenErrorSchema,
  deviceTokenSchema,
} from '../../schemas/operators.ts';
import type { SessionEnd } from '../operator-messages.ts';
import { whoAmI } from './operator-api.ts';
import {
  beginSession,
  keepPendingSignIn,
  pendingSignIn,
  setNotice,
  storedSession,
  type PendingSignIn,
} from './operator-session.ts';
import { requireProxy, SettingsError } from './settings.ts';

const TIMEOUT_MS = 15_000;
/** Wakes a worker Chromium stopped while a sign-in waited (polls themselves keep it running). */
export const SIGN_IN_ALARM = 'kassa.signIn';

/** The one poll loop of this worker, while it runs. */
let polling: Promise<void> | undefined;

/** What the approving person is shown as the device asking: "Kassa extension on Linux". */
function clientName(): string {
  const platform = (navigator as { userAgentData?: { platform?: string } }).userAgentData?.platform;
  return platform ? `Kassa extension on ${platform}` : 'Kassa extension';
}

/** One form post to the proxy's device endpoints (the RFC's encoding): its status and JSON body. */
async function post(url: string, fields: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { Accept: 'application/json' },
    cache: 'no-store',
    credentials: 'omit',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** Asks the configured proxy for a code and starts polling; the page then shows the code. */
export async function startSignIn(): Promise<void> {
  const { proxyUrl } = await requireProxy();
  if ((await storedSession())?.proxyUrl === proxyUrl) throw new SettingsError('Already signed in: sign out first');
  let answer: { status: number; body: unknown };
  try {
    answer = await post(`${proxyUrl}/operator/device/code`, { client_name: clientName() });
  } catch (error) {
    throw new SettingsError(`Cannot reach the proxy at ${proxyUrl}: ${(error as Error).message}`);
  }
  const code = deviceCodeSchema.safeParse(answer.body);
  if (answer.status !== 200 || !code.success) {
    const words = (answer.body as { error?: unknown } | undefined)?.error;
    throw new SettingsError(
      typeof words === 'string' ? words : `The proxy cannot sign devices in (HTTP ${answer.status}): is it up to date?`,
    );
  }
  // The page opens in a tab: only a web page, and never one a network could read in clear text.
  if (!isHttpsOrLoopback(code.data.verification_uri_complete))
    throw new SettingsError(
      `The proxy's approval page is not an https address: ${code.data.verification_uri_complete}`,
    );
  await setNotice(null);
  await keepPendingSignIn({
    proxyUrl,
    deviceCode: code.data.device_code,
    userCode: code.data.user_code,
    verificationUri: code.data.verification_uri_complete,
    interval: Math.max(1, code.data.interval),
    expiresAt: Date.now() + code.data.expires_in * 1000,
  });
  await chrome.alarms.create(SIGN_IN_ALARM, { periodInMinutes: 0.5 });
  resumeSignIn();
}

/** Takes up a sign-in under way (at the worker's start, and on its alarm) unless this worker polls already. */
export function resumeSignIn(): void {
  polling ??= poll().finally(() => (polling = undefined));
}

/** Stops the sign-in under way (the person cancelled, or another proxy was saved). */
export async function cancelSignIn(): Promise<void> {
  await keepPendingSignIn(undefined);
  await chrome.alarms.clear(SIGN_IN_ALARM);
}

async function stop(reason: SessionEnd, detail: string | null, proxyUrl: string): Promise<void> {
  await cancelSignIn();
  await setNotice({ reason, detail, proxyUrl });
}

/** The same sign-in, if it is still the one under way (not cancelled, not replaced by a new one). */
async function stillWaiting(pending: PendingSignIn): Promise<PendingSignIn | undefined> {
  const now = await pendingSignIn();
  return now?.deviceCode === pending.deviceCode ? now : undefined;
}

async function poll(): Promise<void> {
  for (;;) {
    const waiting = await pendingSignIn();
    if (!waiting) return;
    await new Promise((resolve) => setTimeout(resolve, waiting.interval * 1000));
    const pending = await stillWaiting(waiting);
    if (!pending) return;
    if (Date.now() >= pending.expiresAt) return stop('code-expired', null, pending.proxyUrl);
    let answer: { status: number; body: unknown };
    try {
      answer = await post(`${pending.proxyUrl}/operator/device/token`, {
        grant_type: DEVICE_GRANT_TYPE,
        device_code: pending.deviceCode,
      });
    } catch {
      continue;
    }
    if (!(await stillWaiting(pending))) return;
    if (answer.status === 200) return signedIn(pending, answer.body);
    const refusal = deviceTokenErrorSchema.safeParse(answer.body);
    // The proxy's own trouble (a 503 while its store is away, say): the next interval asks again.
    if (!refusal.success) {
      if (answer.status >= 500 || answer.status === 429) continue;
      return stop('failed', `HTTP ${answer.status}`, pending.proxyUrl);
    }
    switch (refusal.data.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        await keepPendingSignIn({ ...pending, interval: pending.interval + 5 });
        continue;
      case 'access_denied':
        return stop('denied', refusal.data.error_description, pending.proxyUrl);
      case 'expired_token':
        return stop('code-expired', refusal.data.error_description, pending.proxyUrl);
      default:
        return stop('failed', refusal.data.error_description, pending.proxyUrl);
    }
  }
}

/** The device token, kept for the proxy that issued it; then who it belongs to, asked at once. */
async function signedIn(pending: PendingSignIn, body: unknown): Promise<void> {
  const token = deviceTokenSchema.safeParse(body);
  if (!token.success) return stop('failed', 'The proxy answered something other than a device token', pending.proxyUrl);
  await beginSession({
    proxyUrl: pending.proxyUrl,
    token: token.data.access_token,
    operator: token.data.operator,
    expiresAt: Date.now() + token.data.expires_in * 1000,
  });
  await cancelSignIn();
  await whoAmI().catch(() => undefined);
}

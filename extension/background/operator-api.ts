import { approvalSchema, type OperatorMe } from '../../schemas/operators.ts';
import type { MoneyAnswer } from '../operator-messages.ts';
import { endSession, rememberMe, requireOperator } from './operator-session.ts';

const TIMEOUT_MS = 20_000;

/** A refusal or failure of the proxy, with its own words when it gave any (`{error}`). */
export class ProxyCallError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
    /** With a 403: the permission the operator's role lacks, as the proxy names it. */
    readonly permission?: string,
  ) {
    super(message);
    this.name = 'ProxyCallError';
  }
}

/** Sends one request to an operator route of the configured proxy, with this device's token. */
async function send(
  path: string,
  init: { method?: string; body?: unknown; accept: string },
): Promise<{ response: Response; token: string }> {
  const { proxyUrl, token } = await requireOperator();
  try {
    const response = await fetch(`${proxyUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: init.accept,
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return { response, token };
  } catch (error) {
    throw new ProxyCallError(`Cannot reach the proxy at ${proxyUrl}: ${(error as Error).message}`, 0);
  }
}

/**
 * The refusal of an error answer, in the proxy's own words when it gave any. A 401 means the proxy no
 * longer takes this device's token (revoked, expired, its owner suspended or removed): the session ends
 * at once and every page hears of it. A 403 names the permission missing; the role may have been
 * lowered, so who this device is is asked again.
 */
export async function refusal(status: number, body: unknown, token: string): Promise<ProxyCallError> {
  const { error, permission } = (body ?? {}) as { error?: unknown; permission?: unknown };
  const words = typeof error === 'string' ? error : undefined;
  if (status === 401) {
    await endSession({ reason: 'refused', detail: words ?? null }, token);
    return new ProxyCallError(`Signed out: sign in again (${words ?? 'the proxy refused this device'})`, 401);
  }
  if (status === 403) void whoAmI().catch(() => undefined);
  return new ProxyCallError(
    words ?? `The proxy answered HTTP ${status}`,
    status,
    typeof permission === 'string' ? permission : undefined,
  );
}

/** One call's answer: its status and its JSON body, or the refusal it is. */
async function answer(
  path: string,
  init: { method?: string; body?: unknown },
): Promise<{ status: number; body: unknown }> {
  const { response, token } = await send(path, { ...init, accept: 'application/json' });
  const body: unknown = response.status === 204 ? null : await response.json().catch(() => undefined);
  if (response.ok && body !== undefined) return { status: response.status, body };
  throw await refusal(response.status, body, token);
}

/**
 * One call to an operator route of the configured proxy, with this device's token. An error answer's
 * `{error}` becomes the message word for word (the order service's own refusals reach the operator
 * exactly as it gave them).
 */
export async function operatorCall<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  return (await answer(path, init)).body as T;
}

/**
 * A money action (dual control): done at once below the merchant's threshold, or a request that a
 * second person decides (202, the approval request as the proxy keeps it).
 */
export async function moneyCall<T>(path: string, init: { method?: string; body?: unknown }): Promise<MoneyAnswer<T>> {
  const { status, body } = await answer(path, init);
  if (status !== 202) return { done: body as T };
  const approval = approvalSchema.safeParse(body);
  if (!approval.success)
    throw new Error('The proxy answered something other than what it documents: is it up to date?');
  return { sentForApproval: approval.data };
}

/** Asks the proxy who this device is (role, permissions, expiry), and keeps the answer. */
export async function whoAmI(): Promise<OperatorMe> {
  const { token } = await requireOperator();
  const me = await operatorCall<OperatorMe>('/api/operator/me');
  await rememberMe(token, me);
  return me;
}

/**
 * A file an operator route answers (the payments' CSV export, the audit's): its text and the file name
 * its Content-Disposition gives, kept to letters, digits, dots and dashes.
 */
export async function operatorFile(path: string, accept: string): Promise<{ filename: string; text: string }> {
  const { response, token } = await send(path, { accept });
  if (!response.ok) throw await refusal(response.status, await response.json().catch(() => undefined), token);
  const named = /filename="?([^";]+)"?/i.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
  const filename = named?.replace(/[^\w.-]/g, '_') || 'kassa-export';
  return { filename, text: await response.text() };
}

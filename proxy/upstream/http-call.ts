import type { KyInstance } from 'ky';
import { BodyTooLargeError, readBoundedText } from '../../server-kit/bounded-body.ts';
import { retryAfterMs, UpstreamError, type UpstreamService } from './upstream-error.ts';
import type { UpstreamHealth } from './upstream-health.ts';

/** A single record's answer is far smaller; anything larger is refused unread (it would sit in memory whole). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Lists (every order of the shop) have no pagination upstream, so they may be larger. */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** An upstream service as the clients call it. */
export interface UpstreamApi {
  ky: KyInstance;
  /** One deadline for the whole exchange, from sending to the answer's last byte (KASSA_UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when the body is empty. */
  body: unknown;
}

export interface CallOptions {
  json?: unknown;
  headers?: Record<string, string>;
  searchParams?: Record<string, string>;
  /** The largest answer accepted (MAX_ANSWER_BYTES by default). */
  maxBytes?: number;
}

/** Errors of a connection that was never made: nothing of the request left this process. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * One HTTP exchange with an upstream service, within one deadline that covers the answer's body as
 * well as its headers (ky's own timeout stops at the headers: a service that sends `{` and then
 * nothing would hold the caller for ever). Network failures, the deadline, answers over the size
 * cap and bodies that are not the JSON they claim to be become `unavailable` errors; every status
 * code is left to the caller.
 */
export async function callUpstream(
  api: UpstreamApi,
  service: UpstreamService,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  options: CallOptions = {},
): Promise<UpstreamResponse> {
  const signal = AbortSignal.timeout(api.timeoutMs);
  let response: Response;
  try {
    response = await api.ky(path, {
      method,
      json: options.json,
      headers: options.headers,
      searchParams: options.searchParams,
      signal,
      timeout: false,
    });
  } catch (error) {
    const timedOut = signal.aborted || (error instanceof Error && error.name === 'TimeoutError');
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw new UpstreamError(
      service,
      'unavailable',
      `The ${service} service ${timedOut ? `did not answer within ${api.timeoutMs} ms` : 'could not be reached'}`,
      {
        upstreamMessage: error instanceof Error ? error.message : String(error),
        requestSent: !(typeof code === 'string' && NOT_SENT.has(code)),
      },
    );
  }
  const text = await readAnswer(response, service, options.maxBytes ?? MAX_ANSWER_BYTES, api.timeoutMs);
  if (text.trim() === '') return { status: response.status, headers: response.headers, body: undefined };
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
  } catch {
    throw new UpstreamError(service, 'unavailable', `The ${service} service sent an unreadable answer`, {
      status: response.status,
    });
  }
}

/** The answer's text, read as it streams in and given up past `maxBytes` or the deadline. */
async function readAnswer(
  response: Response,
  service: UpstreamService,
  maxBytes: number,
  timeoutMs: number,
): Promise<string> {
  try {
    return await readBoundedText(response, maxBytes);
  } catch (error) {
    const message =
      error instanceof BodyTooLargeError
        ? `The ${service} service sent an answer larger than ${maxBytes} bytes`
        : error instanceof Error && error.name === 'TimeoutError'
          ? `The ${service} service did not finish its answer within ${timeoutMs} ms`
          : `The ${service} service dropped its answer`;
    throw new UpstreamError(service, 'unavailable', message, { status: response.status });
  }
}

/** The `{error}` (or gateway `{message}`) text of an upstream error body, if it has one. */
export function upstreamMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const text =
    typeof record.error === 'string' ? record.error : typeof record.message === 'string' ? record.message : undefined;
  return text?.slice(0, 500);
}

const SERVICE_NAMES: Record<UpstreamService, string> = {
  pay: 'payment service',
  orders: 'order service',
  reforge: 'cross-chain service',
};

type Schema<T> = { safeParse(value: unknown): { success: true; data: T } | { success: false } };

/**
 * The answer's body when it is a 2xx of the expected shape; otherwise the UpstreamError that says why
 * not. Health follows: refused credentials and failures are reported, anything else means the
 * service is up.
 */
export function expectOk<T>(
  service: UpstreamService,
  response: UpstreamResponse,
  schema: Schema<T>,
  health: UpstreamHealth,
  operation: string,
): T {
  const { status, body } = response;
  const name = SERVICE_NAMES[service];
  const message = upstreamMessage(body);
  let error: UpstreamError;
  if (status >= 200 && status < 300) {
    const parsed = schema.safeParse(body);
    if (parsed.success) {
      health.report(service, 'ok', null, service === 'pay' ? { environment: health.pay.environment } : {});
      return parsed.data;
    }
    error = new UpstreamError(service, 'unavailable', `The ${name} sent an unexpected answer`, { status });
  } else if (status === 429) {
    error = new UpstreamError(service, 'rate_limited', `The ${name} is rate limiting Kassa`, {
      status,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')) ?? 1_000,
    });
  } else if (status === 401 || status === 403) {
    error = new UpstreamError(service, 'credentials', `The ${name} refuses Kassa’s credentials`, {
      status,
      upstreamMessage: message,
    });
  } else if (status >= 500) {
    error = new UpstreamError(service, 'unavailable', `The ${name} failed to process the request`, {
      status,
      upstreamMessage: message,
    });
  } else {
    error = new UpstreamError(service, 'rejected', message ?? `The ${name} refused the request (${status})`, {
      status,
      upstreamMessage: message,
    });
  }
  if (error.failure === 'credentials')
    health.report(service, 'rejected', `${operation} answered ${status}${message ? `: ${message}` : ''}`);
  else if (error.failure === 'unavailable')
    health.report(service, 'unreachable', `${operation}: ${error.message} (${status})`);
  throw error;
}

/** callUpstream, reporting an unreachable service to health. */
export async function callReporting(
  health: UpstreamHealth,
  ...args: Parameters<typeof callUpstream>
): Promise<UpstreamResponse> {
  try {
    return await callUpstream(...args);
  } catch (error) {
    health.report(args[1], 'unreachable', (error as Error).message);
    throw error;
  }
}

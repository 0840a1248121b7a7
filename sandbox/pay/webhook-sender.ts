import type { SandboxClock } from '../clock.ts';
import type { WebhookEvent } from '../../schemas/pay.ts';
import type { WebhookAttempt } from '../../schemas/sandbox.ts';

export interface WebhookSenderOptions {
  /** Waits before each retry after a failure; the real service retries after 1 s, 5 s and 15 s. */
  retryDelaysMs?: readonly number[];
  /** An answer must arrive within this long to count (real service: 10 s). */
  timeoutMs?: number;
}

const MAX_LOGGED_ATTEMPTS = 10_000;

/**
 * Delivers `payment.status_updated` events: one attempt plus the retries, success being any 2xx
 * within the timeout. Every attempt is logged for `GET /_sandbox/webhooks`.
 */
export class WebhookSender {
  private readonly attempts: WebhookAttempt[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private nextId = 1;
  private readonly retryDelaysMs: readonly number[];
  private readonly timeoutMs: number;

  constructor(
    private readonly clock: SandboxClock,
    options: WebhookSenderOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? [1_000, 5_000, 15_000];
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Sends in the background; retries go to the URL the event was first sent to. */
  send(url: string, event: WebhookEvent): void {
    void this.attempt(url, JSON.stringify(event), event.transactionId, 1);
  }

  log(transactionId?: string): WebhookAttempt[] {
    return transactionId ? this.attempts.filter((entry) => entry.transactionId === transactionId) : [...this.attempts];
  }

  /** Cancels pending retries and open requests, for a clean shutdown. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort();
  }

  private async attempt(url: string, body: string, transactionId: string, attempt: number): Promise<void> {
    const startedAt = this.clock.iso();
    const started = performance.now();
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'KassaSandbox-Webhooks/1.0' },
        body,
        signal: controller.signal,
        redirect: 'manual',
      });
      status = response.status;
      await response.body?.cancel();
    } catch (cause) {
      const reason: unknown = controller.signal.reason ?? cause;
      error = reason instanceof Error ? reason.message : String(reason);
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    const ok = status !== null && status >= 200 && status < 300;
    const delay = ok ? undefined : this.retryDelaysMs[attempt - 1];
    this.record({
      id: this.nextId++,
      transactionId,
      url,
      attempt,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      status,
      error,
      ok,
      body,
      retryInMs: delay ?? null,
    });
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(url, body, transactionId, attempt + 1);
    }, delay);
    this.timers.add(timer);
  }

  private record(entry: WebhookAttempt): void {
    this.attempts.push(entry);
    if (this.attempts.length > MAX_LOGGED_ATTEMPTS) this.attempts.splice(0, this.attempts.length - MAX_LOGGED_ATTEMPTS);
  }
}

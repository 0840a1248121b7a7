import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { ProxyClient, type ProxyError } from '../shared/proxy-client.ts';

/** Polling never runs faster than this (the proxy re-reads the bank at most this often anyway). */
const POLL_MIN_MS = 5_000;
const POLL_MAX_MS = 60_000;
/** Slower while nothing changes: a customer may take minutes at the bank. */
const POLL_GROWTH = 1.5;

/** The payment service's final statuses (TERMINAL_STATUSES in schemas/pay.ts, not imported: no zod here). */
const isFinalStatus = (status: string): boolean => status === 'COMPLETED' || status === 'FAILED';

class StatusClient extends ProxyClient {
  async status(statusToken: string): Promise<PaymentStatusView> {
    return (await this.call<PaymentStatusView>(`/api/payments/status/${encodeURIComponent(statusToken)}`)).body;
  }

  statusEventsUrl(statusToken: string): string {
    return `${this.origin}/api/payments/status/${encodeURIComponent(statusToken)}/events`;
  }
}

export interface StatusStreamOptions {
  /** Each new status, the current one first; the last one is final. */
  onStatus(view: PaymentStatusView): void;
  /** The status cannot be followed (an unknown status link, an origin the proxy refuses). */
  onFailure(error: ProxyError): void;
}

/**
 * Follows a payment's status until it is final. First the proxy's Server-Sent Events stream; when
 * that fails (a network filter or a buffering proxy blocks it, or it drops again right after a
 * reconnect) polling takes over: never faster than every 5 s, slower while nothing changes and after
 * errors, and never before the proxy's Retry-After. While the page is hidden (the customer went on to
 * the bank; the browser keeps the page in its back/forward cache) it holds no stream open at the proxy
 * and has no poll pending; shown again, it follows on from the current status.
 */
export class StatusStreamController implements ReactiveController {
  /** How the status is followed right now. */
  transport: 'idle' | 'events' | 'polling' = 'idle';
  private client?: StatusClient;
  private token?: string;
  private source?: EventSource;
  private timer?: ReturnType<typeof setTimeout>;
  private interval = POLL_MIN_MS;
  private lastKey?: string;

  constructor(
    host: ReactiveControllerHost,
    private readonly options: StatusStreamOptions,
  ) {
    host.addController(this);
  }

  /** Follows this payment (and stops following any other). */
  follow(client: ProxyClient, statusToken: string): void {
    this.stop();
    this.client = new StatusClient(client.origin);
    this.token = statusToken;
    this.listen();
  }

  stop(): void {
    this.pause();
    this.token = undefined;
    this.lastKey = undefined;
  }

  /** Whether a payment is being followed (not final yet): it goes on by itself when the page is shown again. */
  get following(): boolean {
    return this.token !== undefined;
  }

  hostConnected(): void {
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    if (this.token && this.transport === 'idle') this.listen();
  }

  hostDisconnected(): void {
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    this.pause();
  }

  private readonly onPageHide = () => this.pause();

  /**
   * Back from the back/forward cache: the stream again, whose first event is the current status,
   * handed on even if unchanged (the page may have moved on meanwhile, to "redirecting" say).
   */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted || !this.token || this.transport !== 'idle') return;
    this.lastKey = undefined;
    this.interval = POLL_MIN_MS;
    this.listen();
  };

  private pause(): void {
    this.source?.close();
    this.source = undefined;
    clearTimeout(this.timer);
    this.transport = 'idle';
  }

  private listen(): void {
    if (typeof EventSource !== 'function') return this.poll(0);
    this.transport = 'events';
    const source = (this.source = new EventSource(this.client!.statusEventsUrl(this.token!)));
    let worked = false;
    let dropped = false;
    source.addEventListener('status', (event) => {
      worked = true;
      dropped = false;
      this.deliver(JSON.parse((event as MessageEvent<string>).data) as PaymentStatusView);
    });
    source.addEventListener('error', () => {
      // A refused stream is closed for good; a stream that never delivered is likely blocked; a
      // stream that worked may reconnect once by itself (the proxy restarts, a stream times out).
      if (source.readyState !== EventSource.CLOSED && worked && !dropped) {
        dropped = true;
        return;
      }
      source.close();
      this.interval = POLL_MIN_MS;
      this.poll(0);
    });
  }

  private poll(delayMs: number): void {
    this.transport = 'polling';
    const token = this.token;
    this.timer = setTimeout(() => void this.read(token), delayMs);
  }

  /** One poll: the status now, then the next poll (sooner after a change, later after none or an error). */
  private async read(token: string | undefined): Promise<void> {
    try {
      const view = await this.client!.status(token!);
      if (token !== this.token || this.transport !== 'polling') return;
      this.interval = this.deliver(view) ? POLL_MIN_MS : Math.min(POLL_MAX_MS, this.interval * POLL_GROWTH);
    } catch (error) {
      if (token !== this.token || this.transport !== 'polling') return;
      const problem = error as ProxyError;
      if (problem.kind === 'rejected') {
        this.stop();
        return this.options.onFailure(problem);
      }
      this.interval = Math.min(POLL_MAX_MS, Math.max(this.interval * 2, (problem.retryAfter ?? 0) * 1000));
    }
    if (this.token) this.poll(this.interval);
  }

  /** Hands a status on unless it is the one already handed on; true when it was new. */
  private deliver(view: PaymentStatusView): boolean {
    const key = `${view.status} ${view.networkStatus} ${view.updatedAt} ${view.retryable}`;
    if (key === this.lastKey) return false;
    this.lastKey = key;
    if (isFinalStatus(view.status)) this.stop();
    this.options.onStatus(view);
    return true;
  }
}

import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ProxyError } from './proxy-client.ts';

/** Polling never runs faster than this (the proxy re-reads the bank at most this often anyway). */
const POLL_MIN_MS = 5_000;
const POLL_MAX_MS = 60_000;
/** Slower while nothing changes: a customer may take minutes at the bank. */
const POLL_GROWTH = 1.5;

/** Something the proxy lets a page follow: a payment's status, a purchase's state. */
export interface StateFeed<V> {
  /** The proxy's Server-Sent Events stream of it. */
  eventsUrl: string;
  /** The stream's event that carries a view. */
  event: string;
  /** One read of the view, for polling. */
  read(): Promise<V>;
  /** Tells views apart: the same key twice is the same view. */
  key(view: V): string;
  /** After a final view there is nothing more to follow. */
  final(view: V): boolean;
}

export interface StateStreamOptions<V> {
  /** Each new view, the current one first; the last one is final. */
  onState(view: V): void;
  /** The view cannot be followed (an unknown link, an origin the proxy refuses). */
  onFailure(error: ProxyError): void;
}

/**
 * Follows what the proxy says of something until it is final. First the proxy's Server-Sent Events
 * stream; when that fails (a network filter or a buffering proxy blocks it, or it drops again right
 * after a reconnect) polling takes over: never faster than every 5 s, slower while nothing changes
 * and after errors, and never before the proxy's Retry-After. While the page is hidden (the customer
 * went on to the bank; the browser keeps the page in its back/forward cache) it holds no stream open
 * at the proxy and has no poll pending; shown again, it follows on from the current state.
 */
export class StateStreamController<V> implements ReactiveController {
  /** How the state is followed right now. */
  transport: 'idle' | 'events' | 'polling' = 'idle';
  private feed?: StateFeed<V>;
  private source?: EventSource;
  private timer?: ReturnType<typeof setTimeout>;
  private interval = POLL_MIN_MS;
  private lastKey?: string;

  constructor(
    host: ReactiveControllerHost,
    private readonly options: StateStreamOptions<V>,
  ) {
    host.addController(this);
  }

  /** Follows this feed (and stops following any other). */
  watch(feed: StateFeed<V>): void {
    this.stop();
    this.feed = feed;
    this.listen();
  }

  stop(): void {
    this.pause();
    this.feed = undefined;
    this.lastKey = undefined;
  }

  /** Whether something is being followed (not final yet): it goes on by itself when the page is shown again. */
  get following(): boolean {
    return this.feed !== undefined;
  }

  hostConnected(): void {
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    if (this.feed && this.transport === 'idle') this.listen();
  }

  hostDisconnected(): void {
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    this.pause();
  }

  private readonly onPageHide = () => this.pause();

  /**
   * Back from the back/forward cache: the stream again, whose first event is the current state,
   * handed on even if unchanged (the page may have moved on meanwhile, to "redirecting" say).
   */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted || !this.feed || this.transport !== 'idle') return;
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
    const feed = this.feed!;
    const source = (this.source = new EventSource(feed.eventsUrl));
    let worked = false;
    let dropped = false;
    source.addEventListener(feed.event, (event) => {
      worked = true;
      dropped = false;
      this.deliver(JSON.parse((event as MessageEvent<string>).data) as V);
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
    const feed = this.feed;
    this.timer = setTimeout(() => void this.read(feed), delayMs);
  }

  /** One poll: the view now, then the next poll (sooner after a change, later after none or an error). */
  private async read(feed: StateFeed<V> | undefined): Promise<void> {
    try {
      const view = await feed!.read();
      if (feed !== this.feed || this.transport !== 'polling') return;
      this.interval = this.deliver(view) ? POLL_MIN_MS : Math.min(POLL_MAX_MS, this.interval * POLL_GROWTH);
    } catch (error) {
      if (feed !== this.feed || this.transport !== 'polling') return;
      const problem = error as ProxyError;
      if (problem.kind === 'rejected') {
        this.stop();
        return this.options.onFailure(problem);
      }
      this.interval = Math.min(POLL_MAX_MS, Math.max(this.interval * 2, (problem.retryAfter ?? 0) * 1000));
    }
    if (this.feed) this.poll(this.interval);
  }

  /** Hands a view on unless it is the one already handed on; true when it was new. */
  private deliver(view: V): boolean {
    const feed = this.feed;
    if (!feed) return false;
    const key = feed.key(view);
    if (key === this.lastKey) return false;
    this.lastKey = key;
    if (feed.final(view)) this.stop();
    this.options.onState(view);
    return true;
  }
}

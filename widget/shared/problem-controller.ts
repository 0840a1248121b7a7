import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { formatDuration } from './format.ts';
import type { MisconfigurationCode } from './misconfiguration.ts';
import { fill } from './i18n.ts';
import { emit } from './kassa-event.ts';
import { ProxyError } from './proxy-client.ts';
import type { Action, Tone } from './views.ts';

/** The messages every element has for what can go wrong between it and the proxy. */
export interface ProblemMessages {
  unreachable: string;
  rateLimited: string;
  unavailable: string;
  waitFor: string;
  tryShortly: string;
  misconfigured: string;
}

export interface Problem<M> {
  message: keyof M & string;
  values?: Record<string, string>;
  /** Seconds the proxy asked to wait: "Try again" stays busy until then. */
  wait?: number;
  /** What "Try again" does; no button without it. */
  retry?: () => void;
}

export interface ProblemOptions<M> {
  /** The element's error event: `kassa-error`, `kassa-bridge-error`. */
  event: `kassa-${string}error`;
  /** What the element says when the proxy refuses (a 4xx other than 429), by HTTP status... */
  refusals: Partial<Record<number, keyof M & string>>;
  /** ...and for any other refusal. */
  refused: keyof M & string;
  /** Messages that are not bad news (they read `danger` otherwise). */
  tones?: Partial<Record<keyof M & string, Tone>>;
  /** Whether a proxy failure may be tried again (a refusal stands, unless said otherwise). */
  retryable?(failure: ProxyError): boolean;
}

/**
 * What went wrong, for an element to show in its status line and report in its error event: the
 * problem, and the cool-down during which "Try again" stays busy because the proxy asked to wait.
 * A proxy error reads the same in every element where it is the proxy's doing (no answer, too many
 * requests, unavailable), and as the element's own words where the proxy refused.
 */
export class ProblemController<M extends ProblemMessages, E> implements ReactiveController {
  problem?: Problem<M>;
  /** When the proxy's wait is up (ms since the epoch). */
  private until = 0;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly host: ReactiveControllerHost & EventTarget,
    private readonly options: ProblemOptions<M>,
  ) {
    host.addController(this);
  }

  /** The proxy asked to wait and the time is not up: "Try again" stays busy. */
  get coolingDown(): boolean {
    return Date.now() < this.until;
  }

  hostConnected(): void {
    // The element renders again when the wait is up, to free "Try again".
    if (this.coolingDown) this.timer = setTimeout(() => this.host.requestUpdate(), this.until - Date.now());
  }

  hostDisconnected(): void {
    clearTimeout(this.timer);
  }

  show(problem: Problem<M>): void {
    this.problem = problem;
    this.until = Date.now() + (problem.wait ?? 0) * 1000;
    clearTimeout(this.timer);
    this.hostConnected(); // schedules the render that frees "Try again", as when the element connects
    this.host.requestUpdate();
  }

  /** Clears the problem shown; with `only`, only if it is that one. */
  clear(only?: keyof M & string): void {
    if (only && this.problem?.message !== only) return;
    this.problem = undefined;
    this.host.requestUpdate();
  }

  /**
   * Shows why the proxy could not be used, with `retry` behind "Try again" where it makes sense.
   * Returns the failure (anything not from the proxy client as `unavailable`) for the error event.
   */
  proxyFailed(error: unknown, retry?: () => void): ProxyError {
    const failure = error instanceof ProxyError ? error : new ProxyError('unavailable', 0, String(error));
    const retryable = this.options.retryable?.(failure) ?? true;
    this.show({ message: this.messageFor(failure), wait: failure.retryAfter, retry: retryable ? retry : undefined });
    return failure;
  }

  /** Dispatches the element's error event. */
  report(detail: E): void {
    emit(this.host, this.options.event, detail);
  }

  /**
   * The element cannot work as the shop set it up: the customer is told so (`shown`, friendly), the
   * page's developer why, in `kassa-error` (its `code`) and in a console warning naming the setting.
   */
  misconfigured(
    detail: E & { code: MisconfigurationCode; message: string },
    shown: keyof M & string = 'misconfigured',
  ): void {
    this.show({ message: shown });
    this.report(detail);
    void import('./misconfiguration.ts').then(
      ({ warnMisconfigured }) => warnMisconfigured(this.host as unknown as Element, detail.code, detail.message),
      () => undefined,
    );
  }

  /** "Try again" for the problem, busy while the proxy's wait lasts; none when there is nothing to try. */
  retryAction(label: string): Action | undefined {
    const retry = this.problem?.retry;
    return retry && [label, retry, this.coolingDown];
  }

  private messageFor({ kind, status, retryAfter }: ProxyError): keyof M & string {
    if (kind === 'unreachable') return 'unreachable';
    if (kind === 'rate-limited') return 'rateLimited';
    // A refusal that says when to come back (409 while a payment is being started) is a wait.
    if (kind === 'unavailable' || retryAfter) return 'unavailable';
    return this.options.refusals[status] ?? this.options.refused;
  }

  /** The problem as the status line reads it: the text (with how long to wait, where that helps) and its tone. */
  line(m: M, locale: string): [text: string, tone: Tone] {
    const { message, values = {}, wait } = this.problem!;
    const text = fill(m[message] as string, values);
    const waiting = message === 'rateLimited' || message === 'unavailable';
    return [
      waiting
        ? `${text} ${wait ? fill(m.waitFor, { wait: formatDuration(wait * 1000, locale) }) : m.tryShortly}`
        : text,
      this.options.tones?.[message] ?? 'danger',
    ];
  }
}

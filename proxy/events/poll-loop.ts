/**
 * When a deliverer looks at its queue: at once when woken, never two rounds at a time (a wake during
 * a round makes another follow it), and, while started, `pollMs` after the last round, so work
 * written by another instance or before a restart is found too.
 */
export class PollLoop {
  private started = false;
  private ticking = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      /** One round; true when more is waiting, to run another at once. */
      round: () => Promise<boolean>;
      pollMs: number;
      /** A round threw (the store is unavailable): the next poll tries again. */
      failed: (error: unknown) => void;
    },
  ) {}

  get running(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.wake();
  }

  wake(): void {
    if (!this.started) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.current = this.tick();
  }

  /** No more rounds; resolves when the one under way has ended. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.current;
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      do {
        this.again = false;
        if (await this.options.round()) this.again = true;
      } while (this.again && this.started);
    } catch (error) {
      this.options.failed(error);
    } finally {
      this.ticking = false;
      if (this.started) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.wake(), this.options.pollMs);
        this.timer.unref();
      }
    }
  }
}

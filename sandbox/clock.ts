/**
 * The emulator's notion of now. Tests move it forward (`POST /_sandbox/clock`) to expire tokens,
 * secrets and rate-limit windows without waiting an hour; timers still run on real time.
 */
export class SandboxClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

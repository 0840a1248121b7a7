import type { SandboxClock } from '../clock.ts';

/** The merchant account behind every key: it can be frozen (for unpaid invoices), which blocks token requests. */
export class AccountState {
  private freeze: { reason: string; at: string } | null = null;

  constructor(private readonly clock: SandboxClock) {}

  get frozen(): { reason: string; at: string } | null {
    return this.freeze;
  }

  setFrozen(reason: string): void {
    this.freeze = { reason, at: this.clock.iso() };
  }

  unfreeze(): void {
    this.freeze = null;
  }
}

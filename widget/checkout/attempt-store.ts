import { randomKey } from '../shared/random-key.ts';

/**
 * One payment attempt in this tab. Its Idempotency-Key is made once and sent again by every retry,
 * double click and reload, so they all reach the same payment; its status token lets a reload resume
 * after the return address (with `kassa_status`) has been cleaned.
 */
export interface Attempt {
  /** The Idempotency-Key of this attempt. */
  key: string;
  /** The capability to read the payment's status, once the proxy has created it. */
  statusToken?: string;
  /** The customer came back from the bank, so the bank has their answer. */
  returned?: boolean;
  /** The payment was handed to the customer's phone: a reload shows its QR code again. */
  phone?: boolean;
}

const PREFIX = 'kassa:attempt:';
/** Where storage is refused (some private modes, sandboxed frames): this page's life only. */
const fallback = new Map<string, string>();

/**
 * The attempt for one thing to pay (a checkout, or an open amount) at one proxy, in sessionStorage:
 * it survives the redirect to the bank and back and reloads, stays with this tab, and is gone when
 * the tab closes.
 */
export class AttemptStore {
  private readonly name: string;

  constructor(scope: string) {
    this.name = PREFIX + scope;
  }

  read(): Attempt | undefined {
    let text: string | null | undefined;
    try {
      text = sessionStorage.getItem(this.name);
    } catch {
      text = fallback.get(this.name);
    }
    try {
      const attempt = text ? (JSON.parse(text) as Attempt) : undefined;
      return typeof attempt?.key === 'string' ? attempt : undefined;
    } catch {
      return undefined;
    }
  }

  /** The attempt under way, or a new one with a fresh key. */
  begin(): Attempt {
    const attempt = this.read() ?? { key: randomKey('kc') };
    this.save(attempt);
    return attempt;
  }

  /** Records the payment the bank sent the customer back for (`kassa_status`). */
  returnedWith(statusToken: string): void {
    this.save({ key: this.read()?.key ?? randomKey('kc'), statusToken, returned: true });
  }

  save(attempt: Attempt): void {
    const text = JSON.stringify(attempt);
    try {
      sessionStorage.setItem(this.name, text);
    } catch {
      fallback.set(this.name, text);
    }
  }

  /** Ends the attempt: the next payment gets a new key. */
  clear(): void {
    fallback.delete(this.name);
    try {
      sessionStorage.removeItem(this.name);
    } catch {
      // nothing stored there
    }
  }
}

import { randomBytes, randomUUID } from 'node:crypto';
import type { SandboxClock } from '../clock.ts';
import {
  CURRENCY_RAILS,
  isTerminalStatus,
  type InitiateRequest,
  type InitiateResponse,
  type PaymentCurrency,
  type PaymentRecord,
} from '../../schemas/pay.ts';

interface StoredPayment {
  record: PaymentRecord;
  keyId: string;
  settlement?: NodeJS.Timeout;
  /** The bank holds its execution until released (a test holds "waiting for the bank"). */
  held?: boolean;
  /** What the customer's authorisation decided, kept while the execution is held. */
  authorised?: Outcome;
}

export interface PaymentLedgerOptions {
  /** Where the hosted flow page lives: `<flowBase>/<transactionId>`. */
  flowBase: string;
  /** How long the bank takes to execute an authorised payment (0: at once). */
  settlementDelayMs: number;
  /** Called on every change of `status`, with the payment's owning key. */
  onStatusChange: (record: PaymentRecord, keyId: string) => void;
}

export type Outcome = { status: 'COMPLETED' | 'FAILED'; networkStatus: string; providerId?: string | undefined };

/** The payments of every key, and the moves a customer, a bank or a test makes on them. */
export class PaymentLedger {
  private readonly payments = new Map<string, StoredPayment>();

  constructor(
    private readonly clock: SandboxClock,
    private readonly options: PaymentLedgerOptions,
  ) {}

  initiate(keyId: string, request: InitiateRequest): InitiateResponse {
    const transactionId = randomUUID();
    const now = this.clock.iso();
    const record: PaymentRecord = {
      transactionId,
      networkPaymentId: `NP${randomBytes(10).toString('hex').toUpperCase()}`,
      amount: request.amount,
      currencyCode: request.currencyCode,
      status: 'PENDING',
      networkStatus: 'INITIATED',
      paymentRail: null,
      reference: request.reference,
      endToEndId: `E2E${randomBytes(12).toString('hex').toUpperCase()}`,
      redirectUrl: request.redirectUrl,
      flowUrl: `${this.options.flowBase}/${transactionId}`,
      providerId: null,
      metadata: request.metadata ?? null,
      initiationTimestamp: now,
      updatedTimestamp: now,
      completedTimestamp: null,
    };
    this.payments.set(transactionId, { record, keyId });
    const {
      transactionId: id,
      networkPaymentId,
      flowUrl,
      status,
      amount,
      currencyCode,
      reference,
      endToEndId,
      initiationTimestamp,
    } = record;
    return {
      transactionId: id,
      networkPaymentId,
      flowUrl,
      status,
      amount,
      currencyCode,
      reference,
      endToEndId,
      initiationTimestamp,
    };
  }

  /** A payment as its owner reads it; undefined for unknown ids and other keys' payments alike. */
  read(transactionId: string, keyId?: string): PaymentRecord | undefined {
    const stored = this.payments.get(transactionId);
    if (!stored || (keyId !== undefined && stored.keyId !== keyId)) return undefined;
    return { ...stored.record };
  }

  /** The key a payment was initiated with (its merchant), for the bank's page to name the payee. */
  keyOf(transactionId: string): string | undefined {
    return this.payments.get(transactionId)?.keyId;
  }

  /** The customer authorised at their bank: the bank executes it after the settlement delay. */
  authorise(transactionId: string, providerId: string, rejects: boolean): void {
    const stored = this.pending(transactionId);
    Object.assign(stored.record, {
      providerId,
      paymentRail: CURRENCY_RAILS[stored.record.currencyCode as PaymentCurrency] ?? null,
      networkStatus: 'AUTHORISED',
      updatedTimestamp: this.clock.iso(),
    });
    const outcome: Outcome = rejects
      ? { status: 'FAILED', networkStatus: 'REJECTED' }
      : { status: 'COMPLETED', networkStatus: 'PAYMENT_EXECUTED_CREDITED' };
    stored.authorised = outcome;
    if (stored.held) return;
    if (this.options.settlementDelayMs <= 0) return this.settle(transactionId, outcome);
    stored.settlement = setTimeout(() => {
      if (!isTerminalStatus(stored.record.status)) this.settle(transactionId, outcome);
    }, this.options.settlementDelayMs);
  }

  /**
   * The bank holds this payment's execution: once authorised it stays PENDING (`AUTHORISED`) until
   * released, however long the settlement delay; a settlement already under way is stopped.
   */
  hold(transactionId: string): void {
    const stored = this.pending(transactionId);
    stored.held = true;
    clearTimeout(stored.settlement);
  }

  /**
   * Ends a hold: an authorised payment is executed at once, with the outcome its authorisation chose
   * (a rejecting bank fails it); one not yet authorised settles as usual once authorised.
   */
  release(transactionId: string): void {
    const stored = this.pending(transactionId);
    if (!stored.held) throw new PaymentStateError('Payment is not held', 409);
    stored.held = false;
    if (stored.authorised) this.settle(transactionId, stored.authorised);
  }

  cancel(transactionId: string, providerId?: string): void {
    this.settle(transactionId, { status: 'FAILED', networkStatus: 'CANCELLED', providerId });
  }

  /** Moves a pending payment to a final status; throws when it is already final. */
  settle(transactionId: string, outcome: Outcome): void {
    const stored = this.pending(transactionId);
    clearTimeout(stored.settlement);
    const now = this.clock.iso();
    const record = stored.record;
    record.status = outcome.status;
    record.networkStatus = outcome.networkStatus;
    if (outcome.providerId) record.providerId = outcome.providerId;
    record.paymentRail ??= CURRENCY_RAILS[record.currencyCode as PaymentCurrency] ?? null;
    record.updatedTimestamp = now;
    if (outcome.status === 'COMPLETED') record.completedTimestamp = now;
    this.options.onStatusChange({ ...record }, stored.keyId);
  }

  stop(): void {
    for (const stored of this.payments.values()) clearTimeout(stored.settlement);
  }

  private pending(transactionId: string): StoredPayment {
    const stored = this.payments.get(transactionId);
    if (!stored) throw new PaymentStateError('Payment not found', 404);
    if (isTerminalStatus(stored.record.status))
      throw new PaymentStateError(`Payment is already ${stored.record.status}`, 409);
    return stored;
  }
}

export class PaymentStateError extends Error {
  constructor(
    message: string,
    readonly status: 404 | 409,
  ) {
    super(message);
  }
}

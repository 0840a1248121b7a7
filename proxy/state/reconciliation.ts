/**
 * What the proxy keeps to reconcile its payments with the payment service: webhook re-reads that did
 * not fit the budget (queued, so a restart keeps them, and done oldest first), payments the service
 * can no longer be asked about (unverifiable, for the operator to settle by hand), and the audit of
 * those settlements. Every store implements it alike.
 */
export interface Unverifiable {
  transactionId: string;
  reason: string;
  /** Epoch ms. */
  since: number;
}

export interface Resolution {
  transactionId: string;
  previousStatus: string;
  status: string;
  note: string;
  /** Epoch ms. */
  resolvedAt: number;
}

export interface Reconciliation {
  /**
   * Remembers that a payment must be re-read (a webhook said it changed, and the read could not be
   * made yet); queued again, it keeps the latest time.
   */
  queueReread(transactionId: string, at: number): Promise<void>;
  /** Settles a queued re-read; with `readAt`, only if it was queued before that read began. */
  dequeueReread(transactionId: string, readAt?: number): Promise<void>;
  /** The queued re-reads, oldest first by when each was last queued. */
  queuedRereads(limit: number): Promise<string[]>;

  markUnverifiable(entry: Unverifiable): Promise<void>;
  clearUnverifiable(transactionId: string): Promise<void>;
  unverifiable(limit: number): Promise<Unverifiable[]>;
  unverifiableOf(transactionId: string): Promise<Unverifiable | undefined>;

  /** The last webhook body Kassa kept for a payment (its public fields), and when it came. */
  lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined>;

  recordResolution(resolution: Resolution): Promise<void>;
  resolutions(transactionId: string): Promise<Resolution[]>;
}

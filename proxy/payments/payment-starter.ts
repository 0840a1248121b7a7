import { setTimeout as sleep } from 'node:timers/promises';
import { createHash, randomBytes } from 'node:crypto';
import { ZodError } from 'zod';
import { compareDecimals, decimalToNumber } from '../../lib/money.ts';
import type { CreatedPayment } from '../../schemas/proxy-api.ts';
import {
  ConflictError,
  GoneError,
  InvalidInputError,
  MisconfiguredError,
  NotAllowedError,
  NotFoundError,
  RefusedError,
  UntrustedAnswerError,
  upstreamFailure,
} from '../domain/domain-errors.ts';
import type { Logger } from '../logger.ts';
import type { StatusBus } from '../state/coordination.ts';
import type { Attempt, Checkout, Payment, Store } from '../state/store.ts';
import type { PayClient } from '../upstream/pay-client.ts';
import type { Checkouts } from './checkouts.ts';
import { isAllowedFlowUrl } from './flow-hosts.ts';
import type { OpenAmount } from './payment-settings.ts';
import { proxyReturnUrl, returnUrlFor } from './return-url.ts';
import { statusView } from './status-view.ts';

export type PaymentRequest =
  | { kind: 'checkout'; checkoutId: string; returnUrl?: string | undefined }
  | { kind: 'open'; amount: string; currencyCode: string; reference: string; returnUrl?: string | undefined };

export interface StartedPayment {
  /** 201 for a payment made now; 200 when an earlier one is answered again. */
  status: 200 | 201;
  body: CreatedPayment;
}

export interface PaymentStarterOptions {
  store: Store;
  bus: StatusBus;
  checkouts: Checkouts;
  pay: PayClient;
  logger: Logger;
  returnUrls: readonly string[];
  flowHosts: readonly string[];
  /** KASSA_ALLOW_PRIVATE_HTTP: a payment page may be plain http on a private-network address. */
  allowPrivateHttp?: boolean;
  openAmount: OpenAmount | null;
  /** Refuses (throws) a checkout's new payment that another feature has called off (a link ended). */
  admit?: ((checkout: Checkout) => Promise<void>) | undefined;
  /** An attempt still pending after this long belonged to a process that died during initiate (60 s). */
  staleAttemptMs?: number | undefined;
}

const STALE_ATTEMPT_MS = 60_000;
/** How long a second request waits for the first one with the same key or checkout. */
const WAIT_FOR_ATTEMPT_MS = 20_000;

/**
 * Starts payments so that double clicks, reloads, retries and concurrent tabs all end in one payment:
 * the Idempotency-Key and the checkout are claimed atomically before the upstream is called, and a
 * second request for either gets the first one's payment.
 */
export class PaymentStarter {
  constructor(private readonly options: PaymentStarterOptions) {}

  /**
   * `proxyOrigin`: where browsers reach this proxy, when known; the bank then sends the customer to
   * the proxy's return address (`/r/<statusToken>`), which leads on to the shop's page, or shows a
   * phone that paid for a computer how it ended. Without it the bank returns to the shop's page.
   */
  async start(idempotencyKey: string, request: PaymentRequest, proxyOrigin?: string): Promise<StartedPayment> {
    const what = await this.resolve(request);
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify([
          request.kind,
          what.checkoutId,
          what.amount,
          what.currencyCode,
          what.reference,
          request.returnUrl ?? null,
        ]),
      )
      .digest('base64url');
    const statusToken = randomBytes(32).toString('base64url');
    const returnUrl = returnUrlFor(request.returnUrl, this.options.returnUrls, statusToken);
    const redirectUrl = proxyOrigin ? proxyReturnUrl(proxyOrigin, statusToken) : returnUrl;

    for (let round = 0; round < 3; round++) {
      const claim = await this.options.store.beginAttempt({
        idempotencyKey,
        fingerprint,
        checkoutId: what.checkoutId,
        statusToken,
        now: Date.now(),
        staleAfterMs: this.options.staleAttemptMs ?? STALE_ATTEMPT_MS,
      });
      if (claim.outcome === 'checkout-paid') throw new ConflictError('This checkout is already paid');
      if (claim.outcome === 'replay' && claim.attempt.fingerprint !== fingerprint) {
        throw new RefusedError('This Idempotency-Key was already used for a different payment request');
      }
      if (claim.outcome === 'replay' || claim.outcome === 'checkout-taken') {
        const payment = await this.settled(claim.attempt);
        // The earlier attempt failed and let go: claim again.
        if (!payment) continue;
        return { status: claim.outcome === 'replay' ? 201 : 200, body: this.created(payment) };
      }
      // Expiry stops new attempts only: a reload after it still finds the payment it made.
      if (what.expiresAt <= Date.now()) {
        await this.options.store.abandonAttempt(idempotencyKey);
        throw new GoneError('This checkout has expired');
      }
      if (what.checkout)
        await this.options.admit?.(what.checkout).catch(async (error: unknown) => {
          await this.options.store.abandonAttempt(idempotencyKey);
          throw error;
        });
      const payment = await this.initiate(idempotencyKey, statusToken, { redirectUrl, returnUrl }, what);
      if (what.previousAttempt) await this.announceSuperseded(what.previousAttempt);
      return { status: 201, body: this.created(payment) };
    }
    throw new ConflictError('Another payment for this checkout is being started; try again shortly', {
      retryAfterSeconds: 2,
    });
  }

  /** What is to be paid: from the merchant's checkout, or an open amount within the configured bounds. */
  private async resolve(request: PaymentRequest) {
    if (request.kind === 'checkout') {
      const checkout = await this.options.checkouts.get(request.checkoutId);
      if (!checkout) throw new NotFoundError('Unknown checkout');
      const metadata = JSON.stringify({
        kassa: { checkoutId: checkout.checkoutId },
        merchant: checkout.metadata ? (JSON.parse(checkout.metadata) as unknown) : null,
      });
      return {
        checkout: checkout as Checkout | undefined,
        checkoutId: checkout.checkoutId as string | null,
        previousAttempt: checkout.currentAttempt,
        expiresAt: checkout.expiresAt,
        amount: checkout.amount,
        currencyCode: checkout.currencyCode,
        reference: checkout.reference,
        metadata,
      };
    }
    const open = this.options.openAmount;
    if (!open) throw new NotAllowedError('Open amounts are not enabled: pay a checkout created by the shop');
    if (request.currencyCode !== open.currencyCode)
      throw new InvalidInputError(`currencyCode must be ${open.currencyCode}`);
    if (compareDecimals(request.amount, open.min) < 0 || compareDecimals(request.amount, open.max) > 0) {
      throw new InvalidInputError(`amount must be from ${open.min} to ${open.max} ${open.currencyCode}`);
    }
    return {
      checkout: undefined,
      checkoutId: null,
      previousAttempt: null,
      expiresAt: Infinity,
      amount: request.amount,
      currencyCode: request.currencyCode,
      reference: request.reference,
      metadata: JSON.stringify({ kassa: { openAmount: true } }),
    };
  }

  private async initiate(
    idempotencyKey: string,
    statusToken: string,
    { redirectUrl, returnUrl }: { redirectUrl: string; returnUrl: string },
    what: { checkoutId: string | null; amount: string; currencyCode: string; reference: string; metadata: string },
  ): Promise<Payment> {
    const { store, pay, logger, flowHosts, allowPrivateHttp } = this.options;
    let initiated;
    const trace = { orphanPossible: false };
    try {
      initiated = await pay.initiate(
        {
          redirectUrl,
          amount: decimalToNumber(what.amount),
          currencyCode: what.currencyCode,
          reference: what.reference,
          metadata: what.metadata,
        },
        trace,
      );
    } catch (error) {
      await store.abandonAttempt(idempotencyKey);
      if (error instanceof ZodError) {
        // Kassa's own request broke the payment service's rules: a bug or a setting, never the customer's.
        const issue = error.issues[0];
        logger.error('payment request does not fit the payment service', {
          field: issue?.path.join('.'),
          problem: issue?.message,
          checkoutId: what.checkoutId,
        });
        throw new MisconfiguredError('The payment could not be started: the shop’s payment settings need attention');
      }
      // A request that left Kassa and whose answer was lost may have created a payment upstream, an
      // unused PENDING one no customer can reach (docs/proxy.md, "Payments that never started"); one that
      // never left (no token, no budget, no connection) cannot have.
      logger.warn('payment initiation failed', {
        error,
        checkoutId: what.checkoutId,
        reference: what.reference,
        ...(trace.orphanPossible ? { orphanPossible: true } : {}),
      });
      throw upstreamFailure(error, 'customer');
    }
    const { payment: started, environment } = initiated;
    if (!isAllowedFlowUrl(started.flowUrl, flowHosts, allowPrivateHttp)) {
      await store.abandonAttempt(idempotencyKey);
      logger.error('payment service returned a flowUrl outside KASSA_FLOW_HOSTS; not handed to the customer', {
        transactionId: started.transactionId,
        flowHost: safeHost(started.flowUrl),
      });
      throw new UntrustedAnswerError('The payment service returned a payment page this shop does not trust');
    }
    const now = Date.now();
    const payment: Payment = {
      transactionId: started.transactionId,
      statusToken,
      idempotencyKey,
      checkoutId: what.checkoutId,
      amount: what.amount,
      currencyCode: what.currencyCode,
      reference: what.reference,
      environment,
      flowUrl: started.flowUrl,
      status: started.status,
      networkStatus: null,
      networkPaymentId: started.networkPaymentId,
      paymentRail: null,
      providerId: null,
      endToEndId: started.endToEndId,
      returnUrl,
      initiatedAt: started.initiationTimestamp,
      updatedAt: started.initiationTimestamp,
      completedAt: null,
      createdAt: now,
      lastCheckedAt: now,
      revision: 1,
    };
    await store.recordPayment(payment);
    logger.info('payment started', {
      transactionId: payment.transactionId,
      checkoutId: payment.checkoutId,
      amount: payment.amount,
      currencyCode: payment.currencyCode,
    });
    // The operator's live list shows a payment from its start, not only once it changes. It is not final,
    // so whether it may be retried needs no checkout.
    await this.options.bus
      .publish(statusView(payment, undefined))
      .catch((error: unknown) =>
        logger.warn('new payment not announced', { error, transactionId: payment.transactionId }),
      );
    return payment;
  }

  /** A failed payment of this checkout can no longer be retried: a newer one took over. Everyone watching hears it. */
  private async announceSuperseded(previousKey: string): Promise<void> {
    const { store, bus } = this.options;
    const previous = await store.getAttempt(previousKey);
    const payment = previous?.transactionId ? await store.paymentById(previous.transactionId) : undefined;
    if (!payment?.checkoutId) return;
    await bus.publish(statusView(payment, await store.getCheckout(payment.checkoutId)));
  }

  /** Waits for another request's attempt to end: its payment, or undefined when it failed and let go. */
  private async settled(attempt: Attempt): Promise<Payment | undefined> {
    const deadline = Date.now() + WAIT_FOR_ATTEMPT_MS;
    for (
      let current: Attempt | undefined = attempt;
      current;
      current = await this.options.store.getAttempt(attempt.idempotencyKey)
    ) {
      if (current.state === 'succeeded' && current.transactionId)
        return this.options.store.paymentById(current.transactionId);
      if (Date.now() > deadline)
        throw new ConflictError('A request with this Idempotency-Key is still in progress; try again shortly', {
          retryAfterSeconds: 2,
        });
      await sleep(50);
    }
    return undefined;
  }

  private created(payment: Payment): CreatedPayment {
    return {
      transactionId: payment.transactionId,
      flowUrl: payment.flowUrl,
      status: payment.status,
      statusToken: payment.statusToken,
      environment: payment.environment,
    };
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unparseable';
  }
}

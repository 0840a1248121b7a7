import { randomBytes } from 'node:crypto';
import { formatSiweMessage, isStatementChainName, purchaseStatement } from '../../lib/siwe.ts';
import type { PurchaseView, Quote } from '../../schemas/onramp.ts';
import { AMOUNT_LIMITS } from '../../schemas/pay.ts';
import { compareDecimals } from '../../lib/money.ts';
import {
  ConflictError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  RefusedError,
  UpstreamUnavailableError,
} from '../domain/domain-errors.ts';
import type { Logger } from '../logger.ts';
import { newCheckoutId, type Checkouts } from '../payments/checkouts.ts';
import { UNSTARTED_PURCHASE, type PurchaseRecord, type QuoteRecord } from '../state/purchases.ts';
import type { Store } from '../state/store.ts';
import type { OnrampCatalog } from './onramp-catalog.ts';
import { onrampPrice } from '../../lib/onramp-price.ts';
import { toCents, tokensText, type OnrampSettings } from './onramp-settings.ts';
import { PURCHASE_REFERENCE } from './mint-worker.ts';
import { verifyOwnership } from './ownership-proof.ts';
import { purchaseView } from './purchase-views.ts';

/** How long a quote (its price and its message) may be signed and used. */
export const QUOTE_TTL_MS = 10 * 60_000;
/** How long a purchase's checkout can be paid: a bank payment, not a shop's cart. */
export const PURCHASE_PAYMENT_WINDOW_SECONDS = 30 * 60;
/** The rolling window of a wallet's limit. */
export const WALLET_WINDOW_MS = 24 * 3_600_000;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Random letters and digits (EIP-4361 nonces allow nothing else; SEPA references nothing more). */
const alphanumeric = (length: number) =>
  Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');

export interface OnrampOptions {
  settings: OnrampSettings;
  catalog: OnrampCatalog;
  store: Store;
  checkouts: Checkouts;
  logger: Logger;
  /** A contract wallet's EIP-1271 answer must come within this. */
  rpcTimeoutMs: number;
  /** How long a purchase's checkout can be paid (PURCHASE_PAYMENT_WINDOW_SECONDS). */
  paymentWindowSeconds?: number | undefined;
}

/**
 * The on-ramp's customer side: a quote (the price, and the EIP-4361 message that proves the wallet is
 * the customer's), then a purchase, which is a checkout the proxy creates within the merchant's
 * settings, so idempotency, reconciliation, the status stream, the operator's search and the
 * merchant's events apply to its payment unchanged.
 */
export class Onramp {
  constructor(private readonly options: OnrampOptions) {}

  /** Prices the purchase and issues the message to sign; every refusal says why. */
  async quote(
    request: { wallet: string; chainId: number; symbol: string; amount: string },
    origin: string,
  ): Promise<Quote> {
    const { settings, catalog, store } = this.options;
    const { chain, coin } = await catalog.offer(request.chainId, request.symbol);
    const tokensCents = toCents(request.amount)!;
    if (tokensCents < settings.minCents || tokensCents > settings.maxCents) {
      const [min, max] = [tokensText(settings.minCents), tokensText(settings.maxCents)];
      // In `details`, which bound: the page says it in the customer's language.
      const reason = tokensCents < settings.minCents ? 'below-minimum' : 'above-maximum';
      throw new RefusedError(`amount must be from ${min} to ${max} ${coin.symbol}`, {
        details: { reason, min, max, symbol: coin.symbol },
      });
    }
    const now = Date.now();
    await this.checkLimit(request.wallet, coin.symbol, Number(tokensCents), now);
    const tokens = tokensText(tokensCents);
    const price = onrampPrice(tokens, settings.fee);
    const payment = price.payment;
    if (compareDecimals(payment, AMOUNT_LIMITS.max) > 0)
      throw new RefusedError(`the payment would exceed ${AMOUNT_LIMITS.max} ${coin.currencyCode}`);
    const quote: QuoteRecord = {
      quoteId: `quo_${alphanumeric(24)}`,
      wallet: request.wallet,
      chainId: chain.chainId,
      chainName: chain.name,
      symbol: coin.symbol,
      tokens,
      tokensCents: Number(tokensCents),
      currencyCode: coin.currencyCode,
      paymentAmount: payment,
      fee: price.fee,
      message: '',
      createdAt: now,
      expiresAt: now + QUOTE_TTL_MS,
    };
    const site = new URL(origin);
    quote.message = formatSiweMessage({
      domain: site.host,
      address: request.wallet,
      statement: purchaseStatement({
        tokens,
        symbol: coin.symbol,
        chainName: isStatementChainName(chain.name) ? chain.name : `chain ${chain.chainId}`,
        payment,
        currencyCode: coin.currencyCode,
        fee: quote.fee,
      }),
      uri: site.origin,
      chainId: chain.chainId,
      nonce: alphanumeric(24),
      issuedAt: new Date(now).toISOString(),
      expirationTime: new Date(quote.expiresAt).toISOString(),
      requestId: quote.quoteId,
    });
    await store.purchases.saveQuote(quote);
    return {
      quoteId: quote.quoteId,
      message: quote.message,
      expiresAt: new Date(quote.expiresAt).toISOString(),
      tokens: { amount: tokens, symbol: coin.symbol, chainId: chain.chainId },
      payment: { amount: payment, currencyCode: coin.currencyCode, fee: quote.fee },
    };
  }

  /**
   * Turns a signed quote into a purchase and its checkout. Nothing is created unless the signature is
   * the wallet's own over exactly this quote's message, the quote is unexpired and unused, and the
   * wallet is within its limit (checked again atomically, fleet-wide).
   */
  async purchase(input: {
    quoteId: string;
    signature: string;
    idempotencyKey: string | null;
  }): Promise<{ purchase: PurchaseRecord; replayed: boolean }> {
    const { settings, catalog, store, checkouts } = this.options;
    const quote = await store.purchases.getQuote(input.quoteId);
    if (!quote) throw new NotFoundError('This quote is unknown: ask for a new one');
    const now = Date.now();
    if (quote.expiresAt <= now) throw new GoneError('This quote has expired: ask for a new one and sign it');
    const target = await catalog.offerFor(quote.chainId, quote.symbol);
    if (!target) throw new RefusedError(`${quote.symbol} can no longer be delivered on chain ${quote.chainId}`);
    const proof = await verifyOwnership({
      message: quote.message,
      signature: input.signature,
      wallet: quote.wallet,
      rpcUrl: target.chain.rpcUrl,
      timeoutMs: this.options.rpcTimeoutMs,
    });
    if (proof.valid === 'unknown')
      throw new UpstreamUnavailableError(
        `The wallet's chain could not be asked to confirm the signature (${proof.reason}); try again`,
        5,
      );
    if (!proof.valid) throw new InvalidInputError(proof.reason);

    const purchaseId = `pur_${alphanumeric(20)}`;
    const { message: _message, createdAt: _quoted, expiresAt: _expires, ...terms } = quote;
    const purchase: PurchaseRecord = {
      ...terms,
      ...UNSTARTED_PURCHASE,
      purchaseId,
      purchaseToken: randomBytes(32).toString('base64url'),
      checkoutId: newCheckoutId(),
      createdAt: now,
      updatedAt: now,
    };
    const created = await store.purchases.create({
      purchase,
      idempotencyKey: input.idempotencyKey,
      limitCents: settings.walletLimitCents === null ? null : Number(settings.walletLimitCents),
      windowStart: now - WALLET_WINDOW_MS,
    });
    if (created.outcome === 'quote-used')
      throw new ConflictError('This quote was already used for a purchase: ask for a new one and sign it');
    if (created.outcome === 'limit') throw this.limitReached(quote.symbol, created.usedCents);
    const made = created.outcome === 'replay' ? created.purchase : purchase;
    // The checkout comes second, under the purchase's own key: a retry after a lost answer, or after a
    // crash between the two, finds the same checkout rather than making another.
    await checkouts.create(
      {
        checkoutId: made.checkoutId,
        amount: made.paymentAmount,
        currencyCode: made.currencyCode,
        reference: `${PURCHASE_REFERENCE}${made.purchaseId.slice(4, 14).toUpperCase()}`,
        metadata: {
          purchaseId: made.purchaseId,
          wallet: made.wallet,
          chainId: made.chainId,
          symbol: made.symbol,
          tokens: made.tokens,
        },
        ttlSeconds: this.options.paymentWindowSeconds ?? PURCHASE_PAYMENT_WINDOW_SECONDS,
      },
      `onramp:${made.purchaseId}`,
    );
    this.options.logger.info('on-ramp purchase', {
      purchaseId: made.purchaseId,
      checkoutId: made.checkoutId,
      chainId: made.chainId,
      symbol: made.symbol,
      tokens: made.tokens,
      proof: proof.kind,
      replayed: created.outcome === 'replay',
    });
    return { purchase: made, replayed: created.outcome === 'replay' };
  }

  /** What the customer sees of a purchase, with its payment's status. */
  async view(purchase: PurchaseRecord): Promise<PurchaseView> {
    return purchaseView(purchase, await this.paymentStatus(purchase), await this.explorer(purchase));
  }

  async paymentStatus(purchase: PurchaseRecord): Promise<string | null> {
    const checkout = await this.options.checkouts.get(purchase.checkoutId);
    if (!checkout) return null;
    return (await this.options.checkouts.latest(checkout)).payment?.status ?? null;
  }

  async explorer(purchase: PurchaseRecord): Promise<string | undefined> {
    try {
      return (await this.options.catalog.offerFor(purchase.chainId, purchase.symbol))?.chain.blockExplorerUrl;
    } catch {
      // The listing is only needed for the link: a purchase is shown without it when it is away.
      return undefined;
    }
  }

  private async checkLimit(wallet: string, symbol: string, tokensCents: number, now: number): Promise<void> {
    const limit = this.options.settings.walletLimitCents;
    if (limit === null) return;
    const used = await this.options.store.purchases.usedByWallet(wallet, symbol, now - WALLET_WINDOW_MS);
    if (used + tokensCents > Number(limit)) throw this.limitReached(symbol, used);
  }

  private limitReached(symbol: string, usedCents: number): RefusedError {
    const limit = this.options.settings.walletLimitCents!;
    const left = limit - BigInt(usedCents);
    return new RefusedError(
      left > 0n
        ? `This wallet can buy at most ${tokensText(left)} ${symbol} more in the next 24 hours (the limit is ${tokensText(limit)} ${symbol} a day)`
        : `This wallet has bought its limit of ${tokensText(limit)} ${symbol} for the last 24 hours`,
      { details: { limit: tokensText(limit), remaining: tokensText(left > 0n ? left : 0n), symbol } },
    );
  }
}

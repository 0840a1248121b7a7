import { isDecimal, sameAmount } from '../../lib/money.ts';
import { parsePurchaseStatement, parseSiweMessage } from '../../lib/siwe.ts';
import { backFromBank, takeReturnedStatusToken } from '../checkout/returned-status.ts';
import { emit } from '../shared/kassa-event.ts';
import { ProxyError } from '../shared/proxy-client.ts';
import { randomKey } from '../shared/random-key.ts';
import { focusStatus } from '../shared/focus-status.ts';
import { StateStreamController } from '../shared/state-stream-controller.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';
import { walletError, WalletError } from '../shared/wallet/wallet-errors.ts';
import type { OnrampDeliveredDetail, OnrampStage } from './events.ts';
import type { OnrampMessages } from './messages/en.ts';
import type { PurchaseView, Quote } from '../../schemas/onramp.ts';
import type { OnrampClient, QuoteRequest } from './onramp-client.ts';
import type { Balance, OrderForm } from './order-form.ts';
import { allows, type OnrampHost } from './phases.ts';
import { proxyErrorDetail, walletRefused, type OnrampProblems } from './problems.ts';
import { isPurchaseToken, linkedPurchase, PurchaseStore, showLink } from './purchase-link.ts';

export interface PurchaseOptions {
  problems: OnrampProblems;
  wallet: WalletController;
  form: OrderForm;
  locale(): string;
}

/** What the proxy sends along with a refusal of a quote (`details`), for the customer's words: which bound, or the wallet's limit. */
interface RefusalDetails {
  reason?: string;
  min?: string;
  max?: string;
  limit?: string;
  remaining?: string;
  symbol?: string;
}

/** A quote the wallet signed, and the Idempotency-Key its purchase is created with. */
interface Signed {
  quoteId: string;
  signature: string;
  key: string;
}

/** The message's text as `personal_sign` takes it: its UTF-8 bytes in hex. */
const utf8Hex = (text: string) =>
  `0x${Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

/**
 * Why the message the proxy asks the wallet to sign is not the purchase the customer asked for, or
 * undefined when it is: the wallet would show it, but the element does not hand it on at all.
 */
function messageProblem(quote: Quote, asked: QuoteRequest): string | undefined {
  const message = parseSiweMessage(quote.message);
  if (!message) return 'it is not an EIP-4361 message as Kassa writes them';
  if (message.address.toLowerCase() !== asked.wallet.toLowerCase()) return `it names ${message.address}`;
  if (message.chainId !== asked.chainId) return `it is for chain ${message.chainId}`;
  if (message.uri !== location.origin) return `it is for ${message.uri}`;
  if (message.requestId !== quote.quoteId) return 'it is for another quote';
  const statement = parsePurchaseStatement(message.statement);
  if (!statement || statement.symbol !== asked.symbol || !sameAmount(statement.tokens, asked.amount))
    return `it says "${message.statement}"`;
  if (!sameAmount(statement.payment, quote.payment.amount) || statement.currencyCode !== quote.payment.currencyCode)
    return `it says "${message.statement}", and the quote ${quote.payment.amount} ${quote.payment.currencyCode}`;
  return undefined;
}

/**
 * A purchase: buying (the quote, its message checked and signed by the wallet, the purchase created
 * with its checkout), then following it live to its end, however the customer comes back to it (a
 * reload, the bank's return, its link in another tab, the `purchase` attribute). Each new state is
 * `kassa-onramp-status`; the tokens on chain are `kassa-onramp-delivered`, and the new balance.
 */
export class PurchaseController {
  client?: OnrampClient;
  /** The purchase shown, as the proxy last told it. */
  view?: PurchaseView;
  /** Its capability: the purchase's link. */
  token?: string;
  /** The wallet's balance of the coin once delivered. */
  balance: Balance;
  /** The quote being asked for and signed, until the purchase exists. */
  asked?: QuoteRequest;
  /** The purchase shown came back from the bank with this page, its status not yet focused. */
  private returned = false;
  private store?: PurchaseStore;
  /** Purchases whose delivery this page has announced. */
  private readonly announced = new Set<string>();
  /** Each purchase bought or shown bumps it; answers for an older one are dropped. */
  private generation = 0;
  private readonly stream: StateStreamController<PurchaseView>;

  constructor(
    private readonly host: OnrampHost,
    private readonly options: PurchaseOptions,
  ) {
    this.stream = new StateStreamController(host, {
      onState: (view) => this.show(view),
      onFailure: (error) => this.lost(error),
    });
  }

  /** The decimals of the purchase's token, from the offer (undefined when the offer no longer lists it). */
  decimals(view: PurchaseView): number | undefined {
    return this.options.form.chain(view.chainId)?.tokens[view.symbol]?.decimals;
  }

  /** A proxy to buy from: whatever was shown or under way for another is let go. */
  open(client: OnrampClient | undefined): void {
    this.forget();
    this.client = client;
    this.store = client && new PurchaseStore(client.origin);
  }

  /**
   * The purchase to show when the element loads, if there is one: the `purchase` attribute, else
   * the page's link, else this tab's last purchase. True when one is followed.
   */
  resume(attribute: string): boolean {
    const token = (isPurchaseToken(attribute) ? attribute : undefined) ?? linkedPurchase() ?? this.store?.read();
    if (!token) return false;
    this.follow(token);
    this.returned = backFromBank();
    return true;
  }

  /** Quotes, checks the message, has the wallet sign it, and creates the purchase: the payment comes next. */
  async buy(): Promise<void> {
    const { host, options } = this;
    const { form, wallet, problems } = options;
    const session = wallet.session;
    const reading = form.reading;
    if (!allows(host.phase, 'buy') || !session || !this.client) return;
    form.leave();
    if (!reading.ok) return;
    const generation = ++this.generation;
    const request: QuoteRequest = {
      wallet: session.account,
      chainId: form.chainId,
      symbol: form.symbol,
      amount: reading.amount,
    };
    this.asked = request;
    // Until signed, the purchase is the connected account's: another account, or none, and it is dropped.
    const current = () => generation === this.generation && wallet.session?.account === request.wallet;
    problems.clear();
    host.phase = 'quoting';
    let quote: Quote;
    try {
      quote = await this.client.quote(request);
    } catch (error) {
      if (current()) this.refused(error, 'quote');
      return;
    }
    if (!current()) return;
    const wrong = messageProblem(quote, request);
    if (wrong) {
      host.phase = 'ready';
      problems.show({ message: 'messageRefused' });
      return problems.report({
        kind: 'message-refused',
        stage: 'sign',
        status: 0,
        message: `The message to sign is not the purchase asked for: ${wrong}`,
      });
    }
    host.phase = 'signing';
    let signature: unknown;
    try {
      signature = await session.request('personal_sign', [utf8Hex(quote.message), request.wallet]);
      if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{2,}$/.test(signature))
        throw new WalletError(
          'wallet-error',
          `The wallet answered personal_sign with ${String(signature).slice(0, 80)}`,
        );
    } catch (error) {
      if (!current()) return;
      host.phase = 'ready';
      return walletRefused(problems, walletError(error), 'sign');
    }
    if (!current()) return;
    await this.create({ quoteId: quote.quoteId, signature, key: randomKey('kp') });
  }

  /**
   * Creates the purchase of a signed quote. Its Idempotency-Key goes with every try, so a try whose
   * answer was lost finds the same purchase rather than another one (or a quote already used).
   */
  private async create(signed: Signed): Promise<void> {
    const generation = this.generation;
    this.host.phase = 'creating';
    try {
      const created = await this.client!.purchase(signed.quoteId, signed.signature, signed.key);
      if (generation !== this.generation) return;
      this.store?.save(created.purchaseToken);
      showLink(created.purchaseToken);
      this.token = created.purchaseToken;
      this.show(created.purchase);
      this.stream.watch(this.client!.feed(created.purchaseToken));
    } catch (error) {
      if (generation === this.generation) this.refused(error, 'purchase', () => void this.create(signed));
    }
  }

  /** Back to the form for a new purchase (after one ended, or instead of paying this one). */
  startOver(): void {
    this.forget();
    this.store?.save(undefined);
    showLink(undefined);
    this.options.problems.clear();
    this.host.phase = this.options.wallet.session ? 'ready' : 'connect';
    void this.options.form.refreshBalance();
  }

  private forget(): void {
    this.generation++;
    this.stream.stop();
    this.view = this.token = this.balance = this.asked = undefined;
    this.returned = false;
  }

  private follow(token: string): void {
    this.forget();
    this.token = token;
    this.host.phase = 'loading';
    this.stream.watch(this.client!.feed(token));
  }

  /** A state of the purchase, from the proxy: shown, and told to the page. */
  private show(view: PurchaseView): void {
    const { host } = this;
    const previous = view.purchaseId === this.view?.purchaseId ? this.view : undefined;
    this.view = view;
    // Once per state: the purchase's answer and its stream's first view are the same state.
    if (previous?.state !== view.state) emit(host, 'kassa-onramp-status', view);
    // A failed payment is tried again in the embedded checkout: the purchase waits for payment until its checkout expires.
    host.phase = view.state === 'awaiting_payment' ? 'paying' : view.state;
    // Back from the bank to a purchase past its payment: no checkout takes the payment's token, so it leaves the address here.
    if (host.phase !== 'paying') takeReturnedStatusToken();
    // Back from the bank: the keyboard starts at the purchase's status, once (while it is paid, at the
    // embedded checkout's own status, and at this one when the checkout goes with its focus).
    if (this.returned && host.phase !== 'paying') {
      this.returned = false;
      void focusStatus(host);
    }
    if (view.state === 'delivered' && view.txHash && !this.announced.has(view.purchaseId)) {
      this.announced.add(view.purchaseId);
      const { purchaseId, amount, symbol, chainId, wallet, txHash } = view;
      emit<OnrampDeliveredDetail>(host, 'kassa-onramp-delivered', {
        purchaseId,
        amount,
        symbol,
        chainId,
        wallet,
        txHash,
      });
      void this.readBalance(view);
    }
  }

  /** The wallet's balance of the coin on the chain, now that the tokens are there. */
  private async readBalance(view: PurchaseView): Promise<void> {
    const generation = this.generation;
    const token = this.options.form.chain(view.chainId)?.tokens[view.symbol];
    const balance = token
      ? await this.options.form.balanceOf(view.chainId, token.address, view.wallet).catch(() => null)
      : null;
    if (generation !== this.generation) return;
    this.balance = balance;
    this.host.requestUpdate();
  }

  /** The purchase cannot be read (an unknown or foreign link): this tab forgets it. */
  private lost(error: ProxyError): void {
    const { problems } = this.options;
    if (error.status === 404 && this.token === this.store?.read()) this.store?.save(undefined);
    this.host.phase = 'error';
    if (error.status === 404) problems.show({ message: 'unknownPurchase', retry: () => this.startOver() });
    else problems.proxyFailed(error, () => this.follow(this.token!));
    problems.report(proxyErrorDetail(error, 'follow'));
  }

  /**
   * The proxy refused the quote or the purchase, or could not be reached: back to the form, saying why
   * in the customer's words; "Try again" (where it makes sense) does `retry`, a new quote by default.
   */
  private refused(error: unknown, stage: OnrampStage, retry = () => void this.buy()): void {
    const { host, options } = this;
    const { problems } = options;
    const failure = error instanceof ProxyError ? error : new ProxyError('unavailable', 0, String(error));
    host.phase = 'ready';
    const said = this.reason(failure, stage);
    if (said) problems.show(said);
    else problems.proxyFailed(failure, retry);
    problems.report(proxyErrorDetail(failure, stage));
  }

  /** The customer's words for a refusal whose reason the proxy gave, or undefined for the usual ones. */
  private reason(
    { kind, status, details }: ProxyError,
    stage: OnrampStage,
  ): { message: keyof OnrampMessages; values?: Record<string, string> } | undefined {
    if (kind !== 'rejected') return undefined;
    if (status === 400 && stage === 'purchase') return { message: 'signatureRefused' };
    if (status !== 422) return undefined;
    const { reason, min, max, limit, remaining, symbol = this.options.form.symbol } = (details ?? {}) as RefusalDetails;
    const amount = (value: string) => tokenAmount(value, symbol, this.options.locale());
    if (reason === 'below-minimum' && min) return { message: 'belowMinimum', values: { min: amount(min) } };
    if (reason === 'above-maximum' && max) return { message: 'aboveMaximum', values: { max: amount(max) } };
    // The wallet's limit for the day: how much it may still buy, and the limit.
    if (remaining && isDecimal(remaining) && !sameAmount(remaining, '0'))
      return { message: 'walletLimit', values: { amount: amount(remaining) } };
    if (limit) return { message: 'walletLimitReached', values: { amount: amount(limit) } };
    return { message: 'quoteRefused' };
  }
}

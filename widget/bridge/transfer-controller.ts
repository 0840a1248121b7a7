import { Transaction } from 'ethers';
import type { ReactiveController } from 'lit';
import { describeTransfer, PreviewError } from '../../lib/transfer-preview.ts';
import { emit } from '../shared/kassa-event.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import type { BridgeClient } from './bridge-client.ts';
import { BridgeError, type BridgeErrorKind } from './errors.ts';
import type { BridgeSubmittedDetail } from './events.ts';
import type { FormController } from './form-controller.ts';
import type { HistoryController } from './history-controller.ts';
import type { BridgeMessages } from './messages/en.ts';
import { allows, focusAfterUpdate, type BridgeHost } from './phases.ts';
import { preparedMismatch } from './prepared-check.ts';
import { errorDetail, kindMessage, proxyErrorDetail, type BridgeProblems } from './problems.ts';
import { sendTransfer, type Prepared } from './send-transfer.ts';
import { withOwnFees } from './transfer-fees.ts';
import { DEFAULT_TIMEOUTS, MAIN_DELAYED_MS, type Arrived, type Mined, type Refunded } from './transfer-follower.ts';
import { detailOf } from './transfer-outcome.ts';
import { trackTransfer, type Tracking } from './transfer-tracking.ts';
import type { TransferRecord, TransferStore } from './transfer-store.ts';
import type { WalletController } from '../shared/wallet/wallet-controller.ts';

export interface TransferOptions {
  problems: BridgeProblems;
  wallet: WalletController;
  form: FormController;
  history: HistoryController;
  /** The locale amounts in messages are written in. */
  locale(): string;
}

/** The balances checked before sending: their messages say what is missing. */
const SEND_MESSAGES: Partial<Record<BridgeErrorKind, keyof BridgeMessages>> = {
  'insufficient-balance': 'insufficientBalance',
  'insufficient-gas': 'insufficientGas',
};

/**
 * A transfer, from the form to its arrival: has the proxy prepare it and checks what came back,
 * sends it through the wallet once the user confirms, keeps it in the tab (so a reload follows it
 * on instead of sending it again), follows it to its receipt and its arrival, and stops following
 * when the panel leaves the page or starts over.
 */
export class TransferController implements ReactiveController {
  prepared?: Prepared;
  /** The transfer sent (or kept across a reload), from then on. */
  record?: TransferRecord;
  mined?: Mined;
  arrived?: Arrived;
  refunded?: Refunded;
  failure?: BridgeError;
  private client?: BridgeClient;
  private store?: TransferStore;
  private following?: AbortController;
  /** Each reset bumps it; answers for an older listing are dropped. */
  private generation = 0;

  constructor(
    private readonly host: BridgeHost,
    private readonly options: TransferOptions,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    // Put back into the page while a transfer was being followed: follow it again.
    if (this.record && !this.following && allows(this.host.phase, 'resume')) this.follow(this.record);
  }

  hostDisconnected(): void {
    this.stopFollowing();
  }

  /** A new listing: nothing prepared, sent or followed any more. */
  reset(): void {
    this.generation++;
    this.stopFollowing();
    this.client = this.store = undefined;
    this.forget();
  }

  /**
   * The listing is in: follows the transfer this tab kept, or else the history's newest one still
   * under way (after a browser restart), when both its chains are listed; else opens the form.
   */
  async resume(client: BridgeClient, store: TransferStore): Promise<void> {
    const { form, history } = this.options;
    const generation = this.generation;
    this.client = client;
    this.store = store;
    const kept = store.read() ?? (await history.underWay());
    if (generation !== this.generation) return;
    if (kept && form.chain(kept.sourceChainId) && form.chain(kept.destinationChainId)) {
      store.save(kept);
      form.select(kept);
      return this.follow(kept);
    }
    store.clear();
    this.toForm();
  }

  /** A wallet connected while the panel waited for one: the form, for its chain. */
  walletConnected(focusInside: boolean): void {
    if (!allows(this.host.phase, 'open-form')) return;
    this.options.form.start(this.options.wallet.session?.chainId);
    this.host.phase = 'ready';
    if (focusInside) void focusAfterUpdate(this.host, '#amount');
  }

  /**
   * The wallet changed account or chain, or lost or found its chains: a preview made for another account
   * is dropped (it would mint there), and the balance is read again. Back on its chains, "try again once
   * it is back" is no longer said.
   */
  walletChanged(): void {
    if (this.options.wallet.session?.reachable) this.options.problems.clear('walletDisconnected');
    const previewedFor = this.prepared?.preview.mint.to;
    const account = this.options.wallet.session?.account;
    if (allows(this.host.phase, 'confirm') && previewedFor && previewedFor.toLowerCase() !== account?.toLowerCase()) {
      this.prepared = undefined;
      this.host.phase = 'ready';
      this.options.problems.show({ message: 'accountChanged' });
    }
    if (allows(this.host.phase, 'reread')) void this.options.form.refreshBalance();
    this.host.requestUpdate();
  }

  walletLost(): void {
    if (!allows(this.host.phase, 'lose-wallet')) return;
    this.prepared = undefined;
    this.options.problems.clear();
    this.host.phase = 'connect';
  }

  /** Has the proxy prepare the transfer in the form, and shows it if it is exactly the one asked for. */
  async review(): Promise<void> {
    const { host, client, options } = this;
    const { form, problems } = options;
    const session = options.wallet.session;
    if (!allows(host.phase, 'review') || !session || !client) return;
    const source = form.chain(form.sourceId);
    const destination = form.chain(form.destinationId);
    const sourceToken = form.token(form.sourceId);
    const destinationToken = form.token(form.destinationId);
    if (!source || !destination || !sourceToken || !destinationToken) return;
    const generation = this.generation;
    const account = session.account;
    const stale = () => generation !== this.generation || host.phase !== 'preparing';
    form.touched = true;
    problems.clear();
    host.phase = 'preparing';
    // The balance is checked before preparing: read it now if it is not known yet.
    if (typeof form.balance !== 'bigint') await form.refreshBalance();
    if (stale()) return;
    if (typeof form.balance !== 'bigint') {
      host.phase = 'ready';
      return problems.show({ message: 'rpcError', values: { chain: source.name } });
    }
    const reading = form.read();
    if (!reading.ok) {
      host.phase = 'ready';
      if (reading.problem === 'insufficient') {
        const why = `The balance is ${form.balance} base units, the transfer needs more`;
        problems.report(errorDetail(new BridgeError('insufficient-balance', 'balance', why)));
      }
      return focusAfterUpdate(host, '#amount');
    }
    let serialized: string;
    try {
      serialized = await client.prepare({
        sourceAmount: reading.amount,
        sourceToken: sourceToken.address,
        destinationToken: destinationToken.address,
        destinationChainId: destination.chainId,
      });
    } catch (error) {
      if (stale()) return;
      host.phase = 'ready';
      return problems.report(proxyErrorDetail(problems.proxyFailed(error), 'prepare'));
    }
    if (stale()) return;
    try {
      // Fail closed: what the proxy prepared must be exactly what the user asked for.
      const asked = { source, destination, sourceToken, destinationToken, units: reading.units, account };
      const mismatch = preparedMismatch(describeTransfer(serialized, form.chains, account), asked);
      if (mismatch) throw new PreviewError(`The prepared transaction's ${mismatch} is not the one asked for`);
      const priced = await withOwnFees(serialized, form.rpc(source), account);
      if (stale()) return;
      const preview = describeTransfer(priced, form.chains, account);
      this.prepared = { tx: Transaction.from(priced), preview, source, destination };
      host.phase = 'review';
    } catch (error) {
      if (stale()) return;
      host.phase = 'ready';
      const message = error instanceof PreviewError ? error.message : String(error);
      this.fail(error instanceof BridgeError ? error : new BridgeError('preview-refused', 'preview', message));
    }
  }

  back(): void {
    if (!allows(this.host.phase, 'back')) return;
    this.prepared = undefined;
    this.options.problems.clear();
    this.host.phase = 'ready';
    void focusAfterUpdate(this.host, '[part~="button"]');
  }

  /** Checks, puts the wallet on the transaction's chain, has it sign and send, and follows the transfer. Once. */
  async confirm(): Promise<void> {
    const { host, prepared, store, options } = this;
    const { form, wallet } = options;
    const session = wallet.session;
    if (!allows(host.phase, 'confirm') || !prepared || !session || !store || store.read()) return;
    const { preview, source } = prepared;
    const generation = this.generation;
    options.problems.clear();
    host.phase = 'signing';
    let record: TransferRecord;
    try {
      record = await sendTransfer(session, prepared, (chain) => form.rpc(chain), {
        switching: () => (host.phase = 'switching'),
        signing: () => (host.phase = 'signing'),
        current: () => wallet.session === session,
      });
    } catch (error) {
      if (generation !== this.generation) return;
      const problem = error instanceof BridgeError ? error : new BridgeError('wallet-error', 'send', String(error));
      if (problem.kind === 'wallet-unauthorized' || problem.kind === 'wallet-disconnected') {
        this.prepared = undefined;
        host.phase = wallet.session ? 'ready' : 'connect';
      } else if (problem.kind === 'insufficient-balance') {
        this.prepared = undefined;
        host.phase = 'ready';
        void form.refreshBalance();
      } else {
        host.phase = 'review';
      }
      const gas: Record<string, string> =
        problem.kind === 'insufficient-gas'
          ? {
              symbol: source.nativeCurrency.symbol,
              fee: tokenAmount(preview.maxFee, preview.chain.nativeSymbol, options.locale()),
            }
          : {};
      return this.fail(problem, { chain: source.name, ...gas });
    }
    record.id = record.hash;
    store.save(record);
    void options.history.update(record, { state: 'submitted' });
    emit<BridgeSubmittedDetail>(host, 'kassa-bridge-submitted', detailOf(record));
    if (generation === this.generation) this.follow(record);
  }

  /** After a failure: follow on (a timeout, an RPC outage) or start again with the same choices. */
  retry(): void {
    const { failure, record } = this;
    if (!allows(this.host.phase, 'retry')) return;
    if (record && failure && (failure.kind === 'timeout' || failure.kind === 'rpc')) {
      record.sentAt = Date.now();
      return this.follow(record);
    }
    this.startOver(false);
  }

  /** A new transfer: the form again, with the chains and token kept (and the amount, after a failure). */
  startOver(clearAmount = true): void {
    if (!allows(this.host.phase, 'start-over')) return;
    this.stopFollowing();
    this.store?.clear();
    this.forget();
    if (clearAmount) this.options.form.clearAmount();
    this.toForm();
  }

  /** Follows a sent transfer (just sent, or kept across a reload) to its receipt and its arrival (or refund). */
  private follow(record: TransferRecord): void {
    const { host, options } = this;
    const { form, history } = options;
    this.following?.abort();
    const following = (this.following = new AbortController());
    this.forget();
    this.record = record;
    this.mined = record.burnId
      ? { hash: record.hash, blockNumber: Number(record.blockNumber), burnId: record.burnId, gasUsed: 0n, fee: 0n }
      : undefined;
    host.phase = record.delayedAt ? 'delayed' : record.burnId ? 'mined' : 'submitted';
    const tracking: Tracking = {
      host,
      history,
      form,
      store: this.store,
      source: form.rpc(form.chain(record.sourceChainId)!),
      destination: form.rpc(form.chain(record.destinationChainId)!),
      timeouts: {
        ...DEFAULT_TIMEOUTS,
        ...(host.network === 'main' ? { delayed: MAIN_DELAYED_MS } : {}),
        ...host.timeouts,
      },
      signal: following.signal,
    };
    void trackTransfer(record, tracking, {
      mined: (mined) => {
        this.mined = mined;
        host.phase = 'mined';
      },
      ended: (outcome) => {
        if (outcome.kind === 'refunded') this.refunded = outcome;
        else this.arrived = outcome;
        host.phase = outcome.kind;
      },
      failed: (problem) => {
        this.failure = problem;
        host.phase = 'failed';
        options.problems.report(errorDetail(problem, record.hash));
      },
    })
      .then((outcome) => {
        if (outcome && options.wallet.session) void form.refreshBalance();
      })
      .finally(() => {
        if (this.following === following) this.following = undefined;
      });
  }

  /** Shows a problem (in the current phase) and reports it. */
  private fail(problem: BridgeError, values: Record<string, string> = {}): void {
    const { form, problems } = this.options;
    problems.show({
      message: SEND_MESSAGES[problem.kind] ?? kindMessage(problem.kind, 'walletError'),
      values: {
        chain: form.chain(form.sourceId)?.name ?? '',
        symbol: form.symbol,
        balance: form.balanceText(this.options.locale()),
        ...values,
      },
    });
    problems.report(errorDetail(problem));
  }

  /** The form, once a wallet is connected; else the wallets. */
  private toForm(): void {
    const connected = !!this.options.wallet.session;
    this.host.phase = connected ? 'ready' : 'connect';
    if (connected) void this.options.form.refreshBalance();
  }

  /** Nothing prepared, sent, or in trouble. */
  private forget(): void {
    this.prepared = this.record = this.mined = this.arrived = this.refunded = this.failure = undefined;
    this.options.problems.clear();
  }

  private stopFollowing(): void {
    this.following?.abort();
    this.following = undefined;
  }
}

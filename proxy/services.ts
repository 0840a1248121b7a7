import type { Redis } from 'ioredis';
import ky from 'ky';
import { ChainDirectory } from './bridge/chain-directory.ts';
import type { ProxyConfig } from './config.ts';
import { EventDeliverer } from './events/event-deliverer.ts';
import { EventDestinations } from './events/event-destinations.ts';
import { OutboxSweeper } from './events/outbox-sweeper.ts';
import { paymentEventRule } from './events/event-rules.ts';
import { linkPaidEvents } from './links/link-events.ts';
import { LinkSettler } from './links/link-settler.ts';
import { Links } from './links/links.ts';
import { EventSigner } from './events/event-signer.ts';
import { retrySchedule, type RetrySchedule } from './events/retry-schedule.ts';
import type { Logger } from './logger.ts';
import { Checkouts } from './payments/checkouts.ts';
import { MerchantKeys } from './payments/merchant-keys.ts';
import { PaymentFollower } from './payments/payment-follower.ts';
import { PaymentRefresher } from './payments/payment-refresher.ts';
import { PaymentStarter } from './payments/payment-starter.ts';
import { PaymentWatch } from './payments/payment-watch.ts';
import { StatusCache } from './payments/status-cache.ts';
import type { Backend } from './state/open-backend.ts';
import { OrdersClient } from './upstream/orders-client.ts';
import { ProxyMetrics } from './monitoring/metrics.ts';
import { createOnramp, type OnrampParts } from './onramp/onramp-parts.ts';
import { registerPurchaseActions } from './onramp/purchase-approvals.ts';
import { createOperatorParts, type OperatorParts } from './operator/operator-parts.ts';
import { createSigninParts, type SigninParts } from './operator/signin/signin-parts.ts';
import { PayClient } from './upstream/pay-client.ts';
import type { MismatchReport } from './upstream/answer-check.ts';
import type { UpstreamApi } from './upstream/http-call.ts';
import type { UpstreamService } from './upstream/upstream-error.ts';
import { ReforgeClient } from './upstream/reforge-client.ts';
import { TokenManager } from './upstream/token-manager.ts';
import { UpstreamHealth } from './upstream/upstream-health.ts';

/** Everything the routes use, built once per proxy. */
export interface ProxyServices extends Omit<Backend, 'redisConnections'> {
  config: ProxyConfig;
  logger: Logger;
  health: UpstreamHealth;
  tokens: TokenManager;
  pay: PayClient;
  orders: OrdersClient;
  chains: ChainDirectory;
  checkouts: Checkouts;
  /** KASSA_MERCHANT_KEY and the keys an admin makes, with their scopes. */
  merchantKeys: MerchantKeys;
  /** Payment links (links/), and what settles their uses as payments end. */
  links: Links;
  linkSettler: LinkSettler;
  starter: PaymentStarter;
  refresher: PaymentRefresher;
  watch: PaymentWatch;
  follower: PaymentFollower;
  statusCache: StatusCache;
  /** Comment lines on open SSE streams, so that proxies in between do not close them (15 s). */
  sseHeartbeatMs: number;
  /** Delivers the merchant's events to KASSA_EVENTS_URL; null when it is not set. */
  events: EventDeliverer | null;
  /** Every destination of the merchant's events, KASSA_EVENTS_URL's first, each delivered on its own. */
  destinations: EventDestinations;
  /** Settles expired checkouts and purges old events. */
  outboxSweeper: OutboxSweeper;
  metrics: ProxyMetrics;
  httpMetrics: boolean;
  /** Stablecoins bought by bank; null when KASSA_ONRAMP_COINS is not set. */
  onramp: OnrampParts | null;
  /** Operators as people: credentials, the routes' guard, device sign-in. */
  operators: OperatorParts;
  /** The operators' sign-in: passkeys, the company's provider, the web session. */
  signin: SigninParts;
}

/** What tests and benchmarks may set; a store or coordination given replaces the configured one's. */
export interface ServiceOverrides extends Partial<Backend> {
  /** After a refused token exchange, wait this long before asking again (30 s). */
  tokenRefusalHoldMs?: number;
  /** How often pending payments are looked over (5 s). */
  followerSweepMs?: number;
  sseHeartbeatMs?: number;
  /** When a pending payment attempt counts as abandoned by a crashed process (60 s). */
  staleAttemptMs?: number;
  /** Shrinks the event retry schedule (tests: 0.001 turns 5 s into 5 ms), give-up horizon included. */
  eventRetryScale?: number;
  /** Replaces the event retry schedule altogether (benchmarks: short delays, the real horizon). */
  eventRetrySchedule?: RetrySchedule;
  /** How often the outbox is polled (1 s) and expired checkouts settled (5 s). */
  eventPollMs?: number;
  eventSweepMs?: number;
  /** How long a merchant's endpoint has to answer (10 s). */
  eventTimeoutMs?: number;
  /** Counts and times HTTP requests for /metrics (on unless a benchmark measures what that costs). */
  httpMetrics?: boolean;
  /** How often the on-ramp's unfinished purchases are looked over (2 s). */
  onrampSweepMs?: number;
  /** How often held link uses are looked over (2 s). */
  linkSweepMs?: number;
  /** How long a purchase's checkout can be paid (30 minutes). */
  onrampPaymentWindowSeconds?: number;
  /** How long an approval request waits for a second person (24 hours). */
  approvalTtlMs?: number;
}

/** Builds the services on the state `openBackend` opened (state/open-backend.ts). */
export function createServices(
  config: ProxyConfig,
  logger: Logger,
  overrides: ServiceOverrides & Omit<Backend, 'redisConnections'>,
): ProxyServices {
  const { store, coordination } = overrides;
  // Without KASSA_EVENTS_URL no deliverer takes the outbox's own rows: events are written for destinations only.
  store.outbox.routeToEnvironment(config.events !== null);
  const health = new UpstreamHealth(logger);
  const metrics = new ProxyMetrics({ store, coordination, health, events: config.events !== null });
  for (const redis of overrides.redisConnections ?? []) countCommands(redis, metrics);
  const upstream = (prefixUrl: string, service: UpstreamService): UpstreamApi => ({
    ky: ky.create({
      prefixUrl,
      retry: 0,
      throwHttpErrors: false,
      fetch: metrics.instrumentedFetch(service, new URL(prefixUrl).pathname),
    }),
    timeoutMs: config.upstreamTimeoutMs,
  });
  const onMismatch: MismatchReport = (service, field, details) => {
    logger.error('upstream answer is not about what was asked; ignored', { service, field, ...details });
    metrics.upstreamMismatch(service, field);
  };
  const tokens = new TokenManager({
    api: upstream(config.payBaseUrl, 'pay'),
    secrets: config.payClientSecrets,
    store: coordination.tokens,
    budget: coordination.tokenBudget,
    health,
    logger,
    refusalHoldMs: overrides.tokenRefusalHoldMs,
  });
  const pay = new PayClient({
    api: upstream(config.payBaseUrl, 'pay'),
    tokens,
    budget: coordination.paymentBudget,
    health,
    onMismatch,
    allowPrivateHttp: config.allowPrivateHttp,
  });
  const orders = new OrdersClient(upstream(config.ordersBaseUrl, 'orders'), config.ordersApiKey, health, onMismatch);
  const chains = new ChainDirectory(new ReforgeClient(upstream(config.reforgeBaseUrl, 'reforge'), health));
  const checkouts = new Checkouts(store, config.checkoutTtlSeconds);
  const starter = new PaymentStarter({
    store,
    bus: coordination.bus,
    checkouts,
    pay,
    logger,
    returnUrls: config.returnUrls,
    flowHosts: config.flowHosts,
    allowPrivateHttp: config.allowPrivateHttp,
    openAmount: config.openAmount,
    staleAttemptMs: overrides.staleAttemptMs,
    // Links are made below, before any request: a link ended stops its checkouts' new payments.
    admit: (checkout) => links.admitPayment(checkout),
  });
  const schedule = overrides.eventRetrySchedule ?? retrySchedule(overrides.eventRetryScale);
  const events = config.events
    ? new EventDeliverer({
        outbox: store.outbox,
        url: config.events.url,
        signer: new EventSigner(config.events.secrets),
        logger,
        schedule,
        pollMs: overrides.eventPollMs,
        timeoutMs: overrides.eventTimeoutMs,
      })
    : null;
  const destinations = new EventDestinations({
    store: store.destinations,
    outbox: store.outbox,
    environment: events && config.events ? { deliverer: events, secrets: config.events.secrets } : null,
    logger,
    schedule,
    pollMs: overrides.eventPollMs,
    timeoutMs: overrides.eventTimeoutMs,
  });
  const eventsWritten = () => destinations.wake();
  const outboxSweeper = new OutboxSweeper({
    outbox: store.outbox,
    environment: () => tokens.environment(),
    logger,
    written: eventsWritten,
    sweepMs: overrides.eventSweepMs,
  });
  const refresher = new PaymentRefresher({
    store,
    pay,
    bus: coordination.bus,
    gate: coordination.readGate,
    logger,
    events: { rule: paymentEventRule(), written: eventsWritten },
  });
  const watch = new PaymentWatch(store, refresher);
  const follower = new PaymentFollower({ store, refresher, logger, sweepMs: overrides.followerSweepMs });
  const statusCache = new StatusCache(coordination.bus);
  const onramp = config.onramp
    ? createOnramp({
        settings: config.onramp,
        store,
        coordination,
        checkouts,
        orders,
        chains,
        tokens,
        logger,
        rpcTimeoutMs: config.upstreamTimeoutMs,
        eventsWritten,
        registry: metrics.registry,
        sweepMs: overrides.onrampSweepMs,
        paymentWindowSeconds: overrides.onrampPaymentWindowSeconds,
      })
    : null;
  const links = new Links({
    links: store.links,
    checkouts,
    shop: { openAmount: config.openAmount, returnUrls: config.returnUrls },
    changes: coordination.linkChanges,
    paidEvents: linkPaidEvents(() => config.publicUrl ?? undefined),
  });
  const linkSettler = new LinkSettler({
    links,
    bus: coordination.bus,
    logger,
    eventsWritten,
    sweepMs: overrides.linkSweepMs,
  });
  const operators = createOperatorParts({
    config,
    store,
    orders,
    registry: metrics.registry,
    approvalTtlMs: overrides.approvalTtlMs,
  });
  if (onramp) registerPurchaseActions(operators.approvals, onramp.operations);
  const signin = createSigninParts({ config, store, operators, logger });
  return {
    config,
    logger,
    store,
    storeInfo: overrides.storeInfo,
    coordination,
    health,
    tokens,
    pay,
    orders,
    chains,
    checkouts,
    merchantKeys: new MerchantKeys(store.merchantKeys, config.merchantKey),
    links,
    linkSettler,
    starter,
    refresher,
    watch,
    follower,
    statusCache,
    sseHeartbeatMs: overrides.sseHeartbeatMs ?? 15_000,
    events,
    destinations,
    outboxSweeper,
    metrics,
    httpMetrics: overrides.httpMetrics ?? true,
    onramp,
    operators,
    signin,
  };
}

/** Counts each command a Redis connection sends, for /metrics. */
function countCommands(redis: Redis, metrics: ProxyMetrics): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    metrics.redisCommands.inc();
    return send(...args);
  };
}

import { randomBytes } from 'node:crypto';
import type { DestinationChange, DestinationView, NewDestination } from '../../schemas/event-destinations.ts';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import type { Logger } from '../logger.ts';
import type { DestinationPatch, DestinationRecord, DestinationStore } from '../state/destinations.ts';
import type { Outbox } from '../state/outbox.ts';
import { DestinationDeliverer, signingSecrets } from './destination-deliverer.ts';
import type { EventDeliverer } from './event-deliverer.ts';
import { postEvent, type PostedAttempt } from './event-post.ts';
import { EventSigner } from './event-signer.ts';
import type { RetrySchedule } from './retry-schedule.ts';

export interface EventDestinationsOptions {
  store: DestinationStore;
  outbox: Outbox;
  /** KASSA_EVENTS_URL's deliverer and secrets, when it is set: the first destination. */
  environment: { deliverer: EventDeliverer; secrets: string[] } | null;
  logger: Logger;
  schedule: RetrySchedule;
  /** How often the list of destinations is read again, for those another instance changed (1 s). */
  pollMs?: number | undefined;
  timeoutMs?: number | undefined;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
export const newDestinationSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const newDestinationId = () => `dest_${randomBytes(12).toString('base64url')}`;
const ENVIRONMENT_ONLY = 'This destination is KASSA_EVENTS_URL: change it in the proxy’s settings';

/**
 * Every destination of the merchant's events: KASSA_EVENTS_URL's (when set) and those added through
 * the API, each delivered by its own deliverer (destination-deliverer.ts). Reads the list again every
 * poll, so a destination added, changed or removed on another instance is followed within a second.
 */
export class EventDestinations {
  private readonly deliverers = new Map<string, DestinationDeliverer>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly pollMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: EventDestinationsOptions) {
    this.pollMs = options.pollMs ?? 1_000;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.options.environment?.deliverer.start();
    const follow = () =>
      void this.follow().catch((error: unknown) =>
        this.options.logger.warn('event destinations unavailable', { error }),
      );
    this.timer = setInterval(follow, this.pollMs);
    this.timer.unref();
    follow();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await Promise.all([
      this.options.environment?.deliverer.stop(),
      ...[...this.deliverers.values()].map((deliverer) => deliverer.stop()),
    ]);
    this.deliverers.clear();
  }

  /** Events were written: every destination looks now. */
  wake(): void {
    this.options.environment?.deliverer.wake();
    for (const deliverer of this.deliverers.values()) deliverer.wake();
  }

  async list(): Promise<DestinationView[]> {
    const environment = await this.environmentView();
    const [records, pending] = await Promise.all([this.options.store.list(), this.options.store.pendingCounts()]);
    return [
      ...(environment ? [environment] : []),
      ...records.map((record) => view(record, pending.get(record.destinationId) ?? 0)),
    ];
  }

  async get(destinationId: string): Promise<DestinationView> {
    const found = (await this.list()).find((destination) => destination.id === destinationId);
    if (!found) throw new NotFoundError('Unknown event destination');
    return found;
  }

  async create(input: NewDestination, now = Date.now()): Promise<{ destination: DestinationView; secret: string }> {
    const store = this.options.store;
    const secret = newDestinationSecret();
    const record: DestinationRecord = {
      destinationId: newDestinationId(),
      url: input.url,
      description: input.description,
      enabledEvents: input.enabledEvents,
      secrets: [{ secret, expiresAt: null }],
      createdAt: now,
      disabledAt: input.enabled ? null : now,
      disabledReason: input.enabled ? null : 'Created disabled',
    };
    await store.create(record);
    await this.follow();
    return { destination: view(record, 0), secret };
  }

  /** Changes an API destination; `by` names who disabled it, for its reason. */
  async change(
    destinationId: string,
    change: DestinationChange,
    by: string,
    now = Date.now(),
  ): Promise<DestinationView> {
    const before = await this.record(destinationId);
    const patch: DestinationPatch = {
      url: change.url,
      description: change.description,
      enabledEvents: change.enabledEvents,
    };
    if (change.enabled === true && before.disabledAt !== null)
      Object.assign(patch, { disabledAt: null, disabledReason: null });
    if (change.enabled === false && before.disabledAt === null)
      Object.assign(patch, { disabledAt: now, disabledReason: `Disabled by ${by}` });
    const after = await this.options.store.update(destinationId, patch);
    if (!after) throw new NotFoundError('Unknown event destination');
    await this.follow();
    return this.get(destinationId);
  }

  async remove(destinationId: string): Promise<DestinationView> {
    const before = await this.get(destinationId);
    await this.record(destinationId);
    await this.options.store.remove(destinationId);
    await this.follow();
    return before;
  }

  /** A new secret; the previous one keeps signing beside it for `overlapSeconds`. */
  async rotateSecret(
    destinationId: string,
    overlapSeconds: number,
    now = Date.now(),
  ): Promise<{ destination: DestinationView; secret: string }> {
    const before = await this.record(destinationId);
    const secret = newDestinationSecret();
    const previous = signingSecrets(before, now)[0];
    const secrets = [
      { secret, expiresAt: null },
      ...(previous && overlapSeconds > 0 ? [{ secret: previous, expiresAt: now + overlapSeconds * 1000 }] : []),
    ];
    await this.options.store.update(destinationId, { secrets });
    await this.follow();
    return { destination: await this.get(destinationId), secret };
  }

  /** The deliveries waiting for a destination are given up on: `skipped`. */
  async skip(destinationId: string): Promise<number> {
    await this.record(destinationId);
    const skipped = await this.options.store.skipPending(destinationId);
    this.deliverers.get(destinationId)?.retryNow();
    return skipped;
  }

  /** Posts a signed `kassa.test` event to the destination now, outside its queue, and says how it went. */
  async sendTest(destinationId: string, now = new Date()): Promise<PostedAttempt & { eventId: string }> {
    const target = await this.target(destinationId, now.getTime());
    const eventId = `evt_test_${randomBytes(12).toString('base64url')}`;
    const payload = JSON.stringify({
      type: 'kassa.test',
      timestamp: now.toISOString(),
      sequence: 0,
      data: { destinationId },
    });
    const signer = new EventSigner(target.secrets);
    return { eventId, ...(await postEvent(target.url, signer.sign(eventId, payload, now), payload, this.timeoutMs)) };
  }

  async deliveries(destinationId: string, query: Parameters<DestinationStore['deliveries']>[1]) {
    await this.record(destinationId);
    return this.options.store.deliveries(destinationId, query);
  }

  /** Starts a deliverer for each destination now listed, updates the others, stops those removed. */
  private async follow(): Promise<void> {
    const { store } = this.options;
    if (!this.running) return;
    const records = await store.list();
    const listed = new Set(records.map((record) => record.destinationId));
    for (const [id, deliverer] of this.deliverers)
      if (!listed.has(id)) {
        this.deliverers.delete(id);
        void deliverer.stop();
      }
    for (const record of records) {
      const running = this.deliverers.get(record.destinationId);
      if (running) running.update(record);
      else {
        const deliverer = new DestinationDeliverer(record, {
          destinations: store,
          outbox: this.options.outbox,
          logger: this.options.logger,
          schedule: this.options.schedule,
          pollMs: this.pollMs,
          timeoutMs: this.timeoutMs,
        });
        this.deliverers.set(record.destinationId, deliverer);
        deliverer.start();
      }
      if (record.disabledAt === null) this.deliverers.get(record.destinationId)!.wake();
    }
  }

  /** An API destination's record; the environment's is changed only in the settings. */
  private async record(destinationId: string): Promise<DestinationRecord> {
    const environment = this.options.environment?.deliverer;
    if (environment && (await environment.endpoints()).some((endpoint) => endpoint.id === destinationId))
      throw new ConflictError(ENVIRONMENT_ONLY);
    const record = await this.options.store.get(destinationId);
    if (!record) throw new NotFoundError('Unknown event destination');
    return record;
  }

  private async target(destinationId: string, now: number): Promise<{ url: string; secrets: string[] }> {
    const environment = this.options.environment;
    const endpoint = (await environment?.deliverer.endpoints())?.find((entry) => entry.id === destinationId);
    if (environment && endpoint) return { url: endpoint.url, secrets: environment.secrets };
    const record = await this.options.store.get(destinationId);
    if (!record) throw new NotFoundError('Unknown event destination');
    return { url: record.url, secrets: signingSecrets(record, now) };
  }

  private async environmentView(): Promise<DestinationView | undefined> {
    const deliverer = this.options.environment?.deliverer;
    if (!deliverer) return undefined;
    const [endpoint] = await deliverer.endpoints();
    const { pending } = await this.options.outbox.depth();
    return {
      ...endpoint!,
      description: 'KASSA_EVENTS_URL',
      kind: 'environment',
      enabledEvents: ['*'],
      createdAt: null,
      previousSecretExpiresAt: null,
      pending,
    };
  }
}

function view(record: DestinationRecord, pending: number): DestinationView {
  const previous = record.secrets.find((entry) => entry.expiresAt !== null && entry.expiresAt > Date.now());
  return {
    id: record.destinationId,
    url: record.url,
    description: record.description,
    kind: 'api',
    enabledEvents: record.enabledEvents as DestinationView['enabledEvents'],
    enabled: record.disabledAt === null,
    disabledAt: iso(record.disabledAt),
    disabledReason: record.disabledReason,
    createdAt: iso(record.createdAt),
    previousSecretExpiresAt: iso(previous?.expiresAt ?? null),
    pending,
  };
}

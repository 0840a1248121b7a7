import type { LinkKind } from '../links.ts';

/** Every Redis key the store and its outbox use, under the configured prefix. */
export function redisKeys(prefix: string) {
  return {
    checkout: (id: string) => `${prefix}checkout:${id}`,
    attempt: (key: string) => `${prefix}attempt:${key}`,
    checkoutIdempotency: (key: string) => `${prefix}checkout-key:${key}`,
    payment: (id: string) => `${prefix}payment:${id}`,
    checked: (id: string) => `${prefix}checked:${id}`,
    token: (statusToken: string) => `${prefix}status-token:${statusToken}`,
    webhook: (dedupeKey: string) => `${prefix}webhook:${dedupeKey}`,
    all: () => `${prefix}payments:all`,
    status: (status: string) => `${prefix}payments:status:${status}`,
    open: () => `${prefix}payments:open`,
    byCheckout: (checkoutId: string) => `${prefix}payments:checkout:${checkoutId}`,
    byReference: (reference: string) => `${prefix}payments:reference:${reference}`,
    /** Checkouts whose expiry is not settled yet, scored by when they expire. */
    expiring: () => `${prefix}checkouts:expiring`,
    /** Set (for a day) by the one sweep that settles a checkout's expiry: a sweep racing it fails its commit. */
    expirySettled: (id: string) => `${prefix}checkout-expiry-settled:${id}`,
    event: (id: string) => `${prefix}event:${id}`,
    eventAttempts: (id: string) => `${prefix}event-attempts:${id}`,
    /** Pending events, scored by when they are due (or their lease ends). */
    eventsDue: () => `${prefix}events:due`,
    /** Every event, lexicographic `<createdAt, 16 digits>:<eventId>`: the operator's list. */
    eventsAll: () => `${prefix}events:all`,
    rereads: () => `${prefix}rereads`,
    unverifiable: () => `${prefix}unverifiable`,
    lastWebhook: (transactionId: string) => `${prefix}last-webhook:${transactionId}`,
    resolutions: (transactionId: string) => `${prefix}resolutions:${transactionId}`,
    /** Failed events, scored by when they were created: the bulk replay. */
    eventsFailed: () => `${prefix}events:failed`,
    /** A hash of where events go: `gone` (410s in a row), `disabledAt`, `disabledReason`. */
    eventEndpoint: (id: string) => `${prefix}event-endpoint:${id}`,
    /**
     * The event destinations added through the API, as one JSON array (all but whether each is
     * disabled, which is its `eventEndpoint` hash): what each event's fan-out reads and expects unchanged.
     */
    eventDestinations: () => `${prefix}event-destinations`,
    /** A destination's pending deliveries, lexicographic `<createdAt>:<eventId>`: its queue, in order. */
    destinationQueue: (id: string) => `${prefix}event-destination-queue:${id}`,
    /** Every delivery of a destination, lexicographic like its queue: its log. */
    destinationLog: (id: string) => `${prefix}event-destination-log:${id}`,
    /** One delivery of an event to a destination (the event's body with it while pending). */
    destinationDelivery: (id: string, eventId: string) => `${prefix}event-delivery:${id}:${eventId}`,
    /** Which instance delivers a destination now (its token), until the lease ends. */
    destinationLease: (id: string) => `${prefix}event-destination-lease:${id}`,
    /** What readiness probes write, so that a Redis refusing writes (a replica, out of memory) is not ready. */
    heartbeat: () => `${prefix}heartbeat`,
    /** A merchant key: its fixed fields as `record`, and `expiresAt`, `revokedAt`, `lastUsedAt`. */
    merchantKey: (keyId: string) => `${prefix}merchant-key:${keyId}`,
    merchantKeyByHash: (tokenHash: string) => `${prefix}merchant-key-hash:${tokenHash}`,
    /** Every merchant key, scored by when it was made. */
    merchantKeys: () => `${prefix}merchant-keys`,
    /** A payment link, its counters with it (JSON). */
    link: (code: string) => `${prefix}link:${code}`,
    /** Every link, lexicographic `<createdAt>:<code>`. */
    linksAll: () => `${prefix}links:all`,
    /** The links of one kind (`link`, `counter`), lexicographic like every link's. */
    linksOfKind: (kind: LinkKind) => `${prefix}links:kind:${kind}`,
    /** A use of a link, by the checkout made for it (JSON). */
    linkUse: (checkoutId: string) => `${prefix}link-use:${checkoutId}`,
    /** A link's uses, lexicographic `<createdAt>:<checkoutId>`. */
    linkUsesOf: (code: string) => `${prefix}link-uses:${code}`,
    /** Uses still held, lexicographic like a link's: the sweep's work, oldest first. */
    linkUsesHeld: () => `${prefix}link-uses:held`,
    quote: (id: string) => `${prefix}onramp-quote:${id}`,
    purchase: (id: string) => `${prefix}purchase:${id}`,
    purchaseByToken: (token: string) => `${prefix}purchase-token:${token}`,
    purchaseByCheckout: (checkoutId: string) => `${prefix}purchase-checkout:${checkoutId}`,
    /** Which purchase used a quote, and under which Idempotency-Key. */
    purchaseByQuote: (quoteId: string) => `${prefix}purchase-quote:${quoteId}`,
    purchaseByTx: (txHash: string) => `${prefix}purchase-tx:${txHash}`,
    purchaseLease: (id: string) => `${prefix}purchase-lease:${id}`,
    purchaseAudit: (id: string) => `${prefix}purchase-audit:${id}`,
    /** Bumped by every purchase of a wallet's coin: purchases that race for one limit commit one at a time. */
    walletVersion: (wallet: string, symbol: string) => `${prefix}purchases:wallet-version:${wallet}:${symbol}`,
    purchasesAll: () => `${prefix}purchases:all`,
    /** The previous version's index of unfinished purchases, removed by the upgrade (purchases.ts). */
    purchasesOpen: () => `${prefix}purchases:open`,
    /** Purchases with work to do (paid, minting, delayed), scored by when it is due (`dueAt`). */
    purchasesDue: () => `${prefix}purchases:due`,
    /** The purchases' layout version: 2 once the upgrade has indexed the work due. */
    purchasesLayout: () => `${prefix}purchases:layout`,
    purchasesByState: (state: string) => `${prefix}purchases:state:${state}`,
    purchasesByWallet: (wallet: string) => `${prefix}purchases:wallet:${wallet}`,
    operator: (id: string) => `${prefix}operator:${id}`,
    operatorByEmail: (email: string) => `${prefix}operator-email:${email}`,
    operatorBySso: (subject: string) => `${prefix}operator-sso:${subject}`,
    /** Every operator, lexicographic `<createdAt>:<operatorId>`. */
    operatorsAll: () => `${prefix}operators:all`,
    /** Bumped by every change of any account: the last-admin rule reads all of them at one version. */
    operatorsVersion: () => `${prefix}operators:version`,
    /** A credential, under the hash of its secret (what each request looks up). */
    credentialByHash: (hash: string) => `${prefix}credential-hash:${hash}`,
    /** The hash of a credential's secret, by its id. */
    credential: (id: string) => `${prefix}credential:${id}`,
    credentialsOf: (operatorId: string) => `${prefix}operator-credentials:${operatorId}`,
    invitation: (hash: string) => `${prefix}invitation:${hash}`,
    invitationsOf: (operatorId: string) => `${prefix}operator-invitations:${operatorId}`,
    passkey: (credentialId: string) => `${prefix}passkey:${credentialId}`,
    passkeysOf: (operatorId: string) => `${prefix}operator-passkeys:${operatorId}`,
    device: (hash: string) => `${prefix}device:${hash}`,
    deviceByUserCode: (userCode: string) => `${prefix}device-user-code:${userCode}`,
    approval: (id: string) => `${prefix}approval:${id}`,
    /** Every approval request, lexicographic `<requestedAt>:<approvalId>`. */
    approvalsAll: () => `${prefix}approvals:all`,
    /** Pending approval requests, scored by when they expire. */
    approvalsPending: () => `${prefix}approvals:pending`,
    auditRecord: (seq: number) => `${prefix}audit:${seq}`,
    /** The last audit record's number and hash, kept apart so that a removed last record shows. */
    auditHead: () => `${prefix}audit-head`,
    /** A sign-in ceremony under way, by the hash of its key. */
    signinCeremony: (hash: string) => `${prefix}signin-ceremony:${hash}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/** Index members sort like (createdAt, id): the order of the operator's lists. */
export const indexMember = (createdAt: number, id: string): string => `${String(createdAt).padStart(16, '0')}:${id}`;
/** The id in an index member. */
export const idOfMember = (member: string): string => member.slice(17);
/** The time in an index member. */
export const timeOfMember = (member: string): number => Number(member.slice(0, 16));

/** A JSON value as its record; a missing key as undefined. */
export const parse = <T>(raw: string | null | undefined): T | undefined =>
  raw === null || raw === undefined ? undefined : (JSON.parse(raw) as T);

import { z } from 'zod'
import { method } from './define'
import { Business, EndpointPaths } from '../payments/config'
import { PlanNameSchema, PlanOverrideSchema } from '../payments/plan-schemas'

/** Payments (spec 4.1, 5.1, 8). No response here ever carries a full API key or webhook secret,
 * with one named exception: `secretShownOnce` of a created endpoint, which the issue demands be
 * shown once with a copy button. The back end never stores, logs or re-sends it. */

export const KeyInfo = z.object({
  /** The account is `api-key:<name>`; `env` is WATCHDESK_API_KEY. */
  name: z.string(),
  masked: z.string(),
  kind: z.enum(['sandbox', 'live']).nullable(),
  source: z.enum(['keychain', 'environment', 'memory']),
  plan: PlanNameSchema.nullable(),
  perMinute: z.number().nullable(),
  perSecond: z.number().nullable(),
  planInferred: z.boolean(),
  active: z.boolean(),
  /** Why a stored value is unusable (a wrong prefix), else null. */
  problem: z.string().nullable(),
})
export type KeyInfo = z.infer<typeof KeyInfo>

export { Business, EndpointPaths } from '../payments/config'

export const RateLimitState = z.object({
  keyName: z.string().nullable(),
  masked: z.string().nullable(),
  /** Requests waiting in the client-side limiter right now. */
  queued: z.number().int(),
  /** Set while the service has answered 429 and the client is waiting (ms since the epoch). */
  limitedUntil: z.number().nullable(),
  last429At: z.number().nullable(),
  count429: z.number().int(),
})
export type RateLimitState = z.infer<typeof RateLimitState>

export const PaymentsStatus = z.object({
  apiBaseUrl: z.string().nullable(),
  keychain: z.object({ reachable: z.boolean(), message: z.string() }),
  keys: z.array(KeyInfo),
  activeKey: KeyInfo.nullable(),
  live: z.boolean(),
  businesses: z.array(Business),
  selectedBusinessId: z.string().nullable(),
  /** True when WATCHDESK_BUSINESS_ID chose the business. */
  businessFromEnvironment: z.boolean(),
  endpointPaths: EndpointPaths,
  walletsRefreshMs: z.number(),
  rateLimit: RateLimitState,
})
export type PaymentsStatus = z.infer<typeof PaymentsStatus>

export const WalletColumn = z.object({
  key: z.string(),
  kind: z.enum(['id', 'amount', 'currency', 'status', 'time', 'text', 'json']),
})
export const WalletsResult = z.object({
  businessId: z.string().nullable(),
  fetchedAt: z.number(),
  /** Where the list was found in the answer: `(array)` or the wrapping property. */
  source: z.string().nullable(),
  columns: z.array(WalletColumn),
  rows: z.array(z.array(z.object({ text: z.string(), kind: WalletColumn.shape.kind }))),
  /** Set when the answer had no recognisable list; the raw JSON is still there. */
  shapeProblem: z.string().nullable(),
  raw: z.unknown(),
})
export type WalletsResult = z.infer<typeof WalletsResult>

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string().nullable(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  status: z.string().nullable(),
  /** Masked (spec 2.1: masked in list responses; watchdesk masks it again whatever it receives). */
  secret: z.string().nullable(),
  createdAt: z.string().nullable(),
  /** Whether the keychain holds this endpoint's secret (`webhook-secret:<id>`). */
  secretInKeychain: z.boolean(),
})
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

const confirmLive = z
  .boolean()
  .optional()
  .describe('Must be true for a write while the active key is live: the operator confirmed it.')

export const CreateEndpointRequest = z
  .object({
    url: z.string().min(1).max(2048),
    events: z.array(z.string()).min(1).max(50),
    description: z.string().max(1000).optional(),
    confirmLive,
  })
  .strict()

export const CreatedEndpoint = z.object({
  endpoint: WebhookEndpoint,
  /** The full `whsec_…` secret, exactly once, for the operator to copy. Never persisted or logged. */
  secretShownOnce: z.string().nullable(),
  secretAccount: z.string(),
  secretStored: z.boolean(),
  /** Why the secret is not (or not properly) in the keychain, else null. */
  secretProblem: z.string().nullable(),
  idempotencyKey: z.string(),
})
export type CreatedEndpoint = z.infer<typeof CreatedEndpoint>

export const TestDelivery = z.object({
  eventId: z.string().nullable(),
  url: z.string().nullable(),
  sentAt: z.number().nullable(),
  /** When the listener committed the test event (ms since the epoch); null if it did not. */
  arrivedAt: z.number().nullable(),
  status: z.number().int().nullable(),
  /** arrived: stored here (matched by event id); dns, tls, connection, timeout: the public URL
   * reached nothing; elsewhere: another receiver answered; path: this listener answered, but the
   * URL's path does not reach /webhooks; refused: this listener answered but did not store it;
   * not_sent: nothing was sent. */
  outcome: z.enum([
    'arrived',
    'dns',
    'tls',
    'connection',
    'timeout',
    'elsewhere',
    'path',
    'refused',
    'not_sent',
  ]),
  message: z.string(),
  /** What to do, null when it arrived. */
  fix: z.string().nullable(),
})
export type TestDelivery = z.infer<typeof TestDelivery>

/** Whether the public URL (listener.publicUrl) reaches this console's listener, re-checked
 * periodically. */
export const PublicUrlState = z.object({
  url: z.string().nullable(),
  state: z.enum(['reachable', 'unreachable', 'unchecked']),
  /** Why it is unreachable (the same categories as a test delivery's outcome), null otherwise. */
  cause: z.enum(['dns', 'tls', 'connection', 'timeout', 'elsewhere', 'path']).nullable(),
  checkedAt: z.number().nullable(),
  message: z.string(),
  fix: z.string().nullable(),
})
export type PublicUrlState = z.infer<typeof PublicUrlState>

/** "Connect this console": the public URL checked before anything is registered, the endpoint
 * registered for it (or the one already there reused), the signed test through it, and what was
 * undone when that test failed. */
export const ConnectResult = z.object({
  /** The endpoint now registered for the URL; null when nothing was registered or it was deleted
   * again after a failed test. */
  endpoint: WebhookEndpoint.nullable(),
  /** The endpoint already registered for this URL (its secret in the keychain) was used. */
  reused: z.boolean(),
  /** The new endpoint's full secret, once, for the operator to copy; null when none was created
   * or the attempt failed (then it was deleted). Never persisted or logged. */
  secretShownOnce: z.string().nullable(),
  secretAccount: z.string().nullable(),
  secretStored: z.boolean(),
  secretProblem: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  test: TestDelivery,
  /** What this attempt undid or replaced (an endpoint deleted at the service with its secret), or
   * what it could not undo and how to; null when there was nothing to undo. */
  cleanup: z.string().nullable(),
  /** listener.publicUrl after the attempt: a failure keeps the last verified one. */
  publicUrl: z.string().nullable(),
})
export type ConnectResult = z.infer<typeof ConnectResult>

/** An endpoint at the service that "Clean up endpoints" proposes to delete, and why. */
export const StaleEndpoint = z.object({
  endpoint: WebhookEndpoint,
  /** earlier_url: this console created it (its secret is in the keychain) for a URL that is not
   * listener.publicUrl any more; duplicate: a second endpoint for the current URL; unreachable:
   * nothing answers at its URL. */
  reason: z.enum(['earlier_url', 'duplicate', 'unreachable']),
  message: z.string(),
})
export type StaleEndpoint = z.infer<typeof StaleEndpoint>

export const CleanupResult = z.object({
  deleted: z.array(z.object({ id: z.string(), secretRemoved: z.boolean() })),
  failed: z.array(z.object({ id: z.string(), message: z.string() })),
})
export type CleanupResult = z.infer<typeof CleanupResult>

export const KeyFeature = z.object({
  feature: z.enum(['wallets', 'webhooks.read', 'webhooks.write']),
  /** What the operator loses without it ("Wallets", "Webhook endpoints (list)", …). */
  label: z.string(),
  scope: z.string(),
  state: z.enum(['ok', 'missing', 'unknown']),
  message: z.string().nullable(),
})
export type KeyFeature = z.infer<typeof KeyFeature>

/** One GET /v1/wallets with a key: whether it works and what the service said. */
export const KeyTest = z.object({
  keyName: z.string().nullable(),
  /** The base URL the call went to (a trailing /v1 removed: watchdesk adds it). */
  baseUrl: z.string().nullable(),
  /** Set when the given base URL ended in /v1. */
  baseUrlNote: z.string().nullable(),
  works: z.boolean(),
  status: z.number().int().nullable(),
  /** The service's error code when it gave one (business_forbidden, not_found, …). */
  code: z.string().nullable(),
  /** Scopes the service said are missing (empty when it did not say). */
  missingScopes: z.array(z.string()),
  /** Businesses the call reached (the one sent as X-Business-Id, and any named in the answer). */
  businesses: z.array(z.string()),
  message: z.string(),
  /** Each feature's scope, tried with a call that changes nothing (empty when only wallets was
   * tried): ok, missing (the service refused it for want of the scope) or unknown (no answer). */
  features: z.array(KeyFeature),
  /** The service refused the key itself (401, or 403 to every feature): `keys set` keeps it only
   * when asked to. */
  refused: z.boolean(),
})
export type KeyTest = z.infer<typeof KeyTest>

export const paymentsMethods = {
  'payments.status': method(
    'API keys (masked), businesses, plan limits, endpoint paths, rate-limit state',
    z.object({}).strict(),
    PaymentsStatus,
  ),
  'payments.keys.set': method(
    'Test an API key, then store it in the OS keychain as api-key:<name> (the kind comes from its prefix); a key the service refuses is not stored unless keep',
    z
      .object({
        name: z.string().min(1).max(40),
        key: z.string().min(1).max(512),
        activate: z.boolean().optional(),
        /** Store it even when the service refuses it (an API being set up, a key about to be enabled). */
        keep: z.boolean().optional(),
      })
      .strict(),
    PaymentsStatus,
  ),
  'payments.keys.test': method(
    'GET /v1/wallets with the named key (or the active one), then each feature’s scope tried with a call that changes nothing: works, missing scopes per feature, businesses',
    z.object({ name: z.string().min(1).max(40).optional() }).strict(),
    KeyTest,
  ),
  'payments.keys.remove': method(
    'Remove an API key from the keychain',
    z.object({ name: z.string().min(1) }).strict(),
    PaymentsStatus,
  ),
  'payments.keys.select': method(
    'Use this key for every call',
    z.object({ name: z.string().min(1) }).strict(),
    PaymentsStatus,
  ),
  'payments.keys.plan': method(
    'Set the rate-limit plan of a key, or null to infer it from the key kind',
    z.object({ name: z.string().min(1), plan: PlanOverrideSchema.nullable() }).strict(),
    PaymentsStatus,
  ),
  'payments.businesses.set': method(
    'The businesses (biz_…) the operator works with and the one sent as X-Business-Id',
    z.object({ businesses: z.array(Business).max(100), selectedBusinessId: z.string().nullable() }).strict(),
    PaymentsStatus,
  ),
  'payments.endpointPaths.set': method(
    'Path and parameter for listing and deleting webhook endpoints (the service publishes none)',
    EndpointPaths,
    PaymentsStatus,
  ),
  'payments.wallets.list': method(
    'GET /v1/wallets for the selected business',
    z.object({}).strict(),
    WalletsResult,
  ),
  'payments.webhooks.list': method(
    'List webhook endpoints (configurable path)',
    z.object({}).strict(),
    z.object({ endpoints: z.array(WebhookEndpoint), raw: z.unknown() }),
  ),
  'payments.webhooks.create': method(
    'POST /v1/webhooks; the secret goes straight into the keychain',
    CreateEndpointRequest,
    CreatedEndpoint,
  ),
  'payments.webhooks.delete': method(
    'Delete a webhook endpoint and remove its secret from the keychain',
    z.object({ id: z.string().min(1).max(200), confirmLive }).strict(),
    z.object({ id: z.string(), secretRemoved: z.boolean() }),
  ),
  'payments.webhooks.connect': method(
    'Check the public HTTPS URL reaches this console’s listener, register it (or reuse the endpoint already there), send a signed test event; a failed test deletes what it registered',
    z
      .object({
        publicUrl: z.string().min(1).max(2048),
        events: z.array(z.string()).min(1).max(50),
        description: z.string().max(1000).optional(),
        confirmLive,
      })
      .strict(),
    ConnectResult,
  ),
  'payments.webhooks.stale': method(
    'Endpoints at the service for this console’s earlier public URLs, duplicates, or URLs where nothing answers',
    z.object({}).strict(),
    z.object({ stale: z.array(StaleEndpoint), total: z.number().int() }),
  ),
  'payments.webhooks.cleanup': method(
    'Delete the chosen endpoints at the service and their secrets from the keychain',
    z.object({ ids: z.array(z.string().min(1).max(200)).min(1).max(100), confirmLive }).strict(),
    CleanupResult,
  ),
  'payments.publicUrl.state': method(
    'Whether listener.publicUrl reached this console’s listener at its last check (no new check)',
    z.object({}).strict(),
    PublicUrlState,
  ),
  'payments.publicUrl.check': method(
    'Check now whether listener.publicUrl reaches this console’s listener',
    z.object({}).strict(),
    PublicUrlState,
  ),
}

export const paymentsPushes = {
  'payments.rateLimit': RateLimitState,
  /** The public URL's reachability changed (checked periodically). */
  'payments.publicUrl': PublicUrlState,
  /** Keys, businesses or plans changed (another window, the CLI through the same back end). */
  'payments.changed': z.object({ at: z.number() }),
}

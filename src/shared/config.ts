import { z } from 'zod'
import { PaymentsConfigShape } from './payments/config'
import { AlertsConfig } from './alerts/config'
import { DriftConfig } from './drift'
import { eventPatternSyntax } from './glob'

/** The config keys users and scripts rely on (DESIGN.md). `config.json` in the data dir holds the
 * operator's saved values; `--config FILE` is laid over it. Secrets never live here. */

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')

export const referenceNamePattern = /^[A-Za-z0-9_.-]{1,64}$/
export const ReferenceConfig = z
  .object({
    name: z.string().regex(referenceNamePattern, 'a name is 1-64 letters, digits, dots, dashes, underscores'),
    url: httpUrl,
    headers: z.record(z.string().min(1).max(200), z.string().max(4096)).optional(),
  })
  .strict()
export type ReferenceConfig = z.infer<typeof ReferenceConfig>

export const ChainConfig = z
  .object({
    slug: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'a slug is lowercase letters, digits and dashes')
      .optional(),
    url: httpUrl.optional(),
    /** Read as one reference named "reference" (before `references`). */
    referenceUrl: httpUrl.optional(),
    /** Other nodes of the same network: the chain's head is corroborated across them and the
     * service node (docs/chains.md). Headers are sent as given (an API key, for instance). */
    references: z
      .array(ReferenceConfig)
      .max(8)
      .refine((list) => new Set(list.map((r) => r.name)).size === list.length, 'reference names must differ')
      .optional(),
    /** Sources that must have reached a height for it to be the chain's head (default 2, or all
     * of them when fewer answer). */
    quorum: z.number().int().min(1).max(9).optional(),
    /** Blocks apart beyond which a source is ahead, behind, or the sources disagree (default:
     * the blocks in stalledAfterSeconds, at least 10). */
    disagreeAfterBlocks: z.number().int().min(1).max(10_000_000).optional(),
    enabled: z.boolean().optional(),
    pollIntervalMs: z.number().int().min(250).max(600_000).optional(),
    /** Health thresholds; the defaults derive from the chain's block time. */
    laggingAfterSeconds: z.number().positive().max(86_400).optional(),
    stalledAfterSeconds: z.number().positive().max(86_400).optional(),
    /** Per-request time-out of the JSON-RPC calls (default 4000 ms). */
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
    /** Failed polls in a row (and at least 15 s) before down, stalled or wrong network (default 3). */
    confirmFailures: z.number().int().min(1).max(100).optional(),
    /** Finalized head older than this raises the finality rule (default from the chain). */
    finalizedLagAfterSeconds: z.number().positive().max(86_400).optional(),
    /** Error rate over 15 min above which the error-rate rule fires (default 0.05). */
    errorRateAbove: z.number().min(0).max(1).optional(),
    /** p95 latency over 15 min above which the latency rule fires (default 1000 ms). */
    p95AboveMs: z.number().positive().max(60_000).optional(),
  })
  .strict()
export type ChainConfig = z.infer<typeof ChainConfig>

export const ListenerConfig = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(7421),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    tls: z
      .object({ certFile: z.string().min(1), keyFile: z.string().min(1) })
      .strict()
      .optional(),
    /** A sender that has not sent all headers / the whole body by then is cut off (408). */
    headersTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    bodyTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Connections held at once; one more is answered 503 with Retry-After. */
    maxConnections: z.number().int().min(16).max(1_000_000).default(512),
    /** Body bytes being received, all requests together (at least maxBodyBytes): beyond it the body
     * that has waited longest is answered 503 with Retry-After, so stalled senders cannot hold the
     * memory a delivery needs. */
    maxBodyBytesInFlight: z
      .number()
      .int()
      .min(1024 * 1024)
      .max(4 * 1024 * 1024 * 1024)
      .default(16 * 1024 * 1024),
    /** The public HTTPS address (tunnel or reverse proxy) that forwards to this listener, as
     * registered by "Connect this console"; its reachability is re-checked periodically. */
    publicUrl: httpUrl.optional(),
    /** The console's address as people reach it (a reverse proxy in front of serve): the base of
     * the links in alerts. Without it, serve's own address, and `watchdesk://` in the app. */
    publicConsoleUrl: httpUrl.optional(),
    /** The 200 answer body for card.authorization.request (the service does not define one). */
    authorizationAnswer: z.record(z.string(), z.unknown()).default({}),
    /** How long a replaced or removed webhook secret is kept (in memory only) to explain deliveries
     * still signed with it; they are refused all the same. */
    retiredSecretHours: z.number().min(0).max(720).default(72),
  })
  .strict()

export const DesktopConfig = z
  .object({
    /** Closing the window keeps the console running in the tray (polling, listener, notifications). */
    closeToTray: z.boolean().default(true),
  })
  .strict()

/** A relay this console syncs from (`sources.<name>.url`); its token is in the keychain as
 * `source-token:<name>`. */
export const SourceConfig = z.object({ url: httpUrl, enabled: z.boolean().default(true) }).strict()
export const sourceNamePattern = /^[A-Za-z0-9_.-]{1,64}$/

/** `funding.*`, `card.authorization.request`, `*`: a type, or a prefix ending in `*`. */
export const forwardEventPattern = z
  .string()
  .regex(eventPatternSyntax, 'an event pattern is a type such as funding.completed, or funding.*')

export const ForwardTargetConfig = z
  .object({
    url: httpUrl,
    /** Event types this target receives (`funding.*` patterns allowed); all when absent. */
    events: z.array(forwardEventPattern).max(100).optional(),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(4000)).optional(),
    timeoutMs: z.number().int().min(100).max(120_000).optional(),
    concurrency: z.number().int().min(1).max(64).optional(),
    enabled: z.boolean().optional(),
    /** Milliseconds to wait before each retry; the last one repeats until forward.maxAgeHours. */
    retrySchedule: z.array(z.number().int().min(10).max(86_400_000)).min(1).max(30).optional(),
  })
  .strict()
export type ForwardTargetConfig = z.infer<typeof ForwardTargetConfig>

/** A forward target's name: the key under forward.targets, the authorization target, the
 * console's forward.targets.set. */
export const ForwardTargetName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a target name is letters, digits, _ . -')

export const ForwardConfig = z
  .object({
    targets: z.record(ForwardTargetName, ForwardTargetConfig).default({}),
    /** The target whose answer to card.authorization.request is the listener's answer; the other
     * subscribed targets get the event once, as a notification. Unset: the only subscribed target,
     * or the first in the config (with a warning) when several subscribe. */
    authorizationTarget: ForwardTargetName.optional(),
    /** How long card.authorization.request waits for the target's answer before the fallback. */
    authorizationBudgetMs: z.number().int().min(50).max(1900).default(1500),
    /** A target paused after failures is probed again at least this often, so it is retried within
     * this many seconds of answering again (its retry schedule only spaces the other retries). */
    probeSeconds: z.number().int().min(1).max(3600).default(10),
    /** A forward still failing after this long is given up (shown as "gave up"). */
    maxAgeHours: z
      .number()
      .positive()
      .max(24 * 90)
      .default(24),
  })
  .strict()

/** Disk use: below this much free space on the data dir's disk, `watchdesk storage`, the console's
 * storage status and /metrics warn, before a write fails for want of space. 0 = no warning. */
export const StorageConfig = z
  .object({ warnFreeMb: z.number().int().min(0).max(10_000_000).default(500) })
  .strict()

/** The replay sentinel's tolerance around each rung of the service's retry ladder (1 min, 5 min,
 * 30 min, 2 h, 24 h): a redelivery this close to a rung is a retry; one no rung explains after a
 * 200 is a suspected replay (docs/events.md). The larger of the two applies to each rung. */
export const ReplayConfig = z
  .object({
    toleranceSeconds: z.number().min(1).max(3_600).default(30),
    tolerancePercent: z.number().min(0).max(50).default(2),
  })
  .strict()

const retentionDays = (days: number) =>
  z
    .object({ days: z.number().int().min(0).max(36_500).default(days) })
    .strict()
    .default({ days })

/** How long each kind of row is kept (days; 0 = keep for ever). Events still waiting in the forward
 * outbox or part of an open incident are kept whatever their age. */
export const RetentionConfig = z
  .object({
    events: retentionDays(90),
    attempts: retentionDays(30),
    alerts: retentionDays(90),
    rejections: retentionDays(30),
    intervalMinutes: z.number().int().min(1).max(10_080).default(60),
  })
  .strict()
export type RetentionConfig = z.infer<typeof RetentionConfig>

/** The relay's sync API and store (`watchdesk relay`): limits sized for a team; see docs/relay.md. */
export const SyncConfig = z
  .object({
    /** Open `/sync/stream`s allowed; one more is refused with 429 and Retry-After. */
    maxStreams: z
      .object({
        perToken: z.number().int().min(1).max(10_000).default(16),
        perRelay: z.number().int().min(1).max(100_000).default(256),
      })
      .strict()
      .default({ perToken: 16, perRelay: 256 }),
    /** Sockets the sync port holds at once (idle or trickling ones included); one more is answered
     * 503 with Retry-After. */
    maxConnections: z.number().int().min(16).max(1_000_000).default(1024),
    /** Sockets that have not yet made a request with a live token: at most `perAddress` from one
     * address (an IPv6 /64), each closed after `deadlineMs`, so held sockets cannot crowd out
     * token holders. */
    unauthenticated: z
      .object({
        perAddress: z.number().int().min(1).max(100_000).default(128),
        deadlineMs: z.number().int().min(100).max(120_000).default(3_000),
      })
      .strict()
      .default({ perAddress: 128, deadlineMs: 3_000 }),
    /** A delivery not committed within this is answered 503 and the storage status says "stalled"
     * (PostgreSQL's statement_timeout too; lock_timeout a quarter of it, at most 1 s). */
    commitDeadlineMs: z.number().int().min(100).max(60_000).default(5000),
  })
  .strict()
export type SyncConfig = z.infer<typeof SyncConfig>

/** The clock guard (issue 32.3): offsets beyond this (seconds, either way), agreed by two
 * references, are reported with the fix and block ages are measured against the corrected clock. */
export const ClockConfig = z.object({ offsetWarnSeconds: z.number().min(1).max(3600).default(5) }).strict()

// Each section's default is its schema's answer to {}, made when a config without that section is
// parsed, not at module load: ten parses at load were ~25 ms of every start, also of the commands
// that never read a config (events, storage, …); a parse now gets a fresh default object each time.
export const ConfigObject = z
  .object({
    apiBaseUrl: httpUrl.optional(),
    rpcBaseUrl: httpUrl.optional(),
    pollIntervalMs: z.number().int().min(250).max(600_000).default(5000),
    chains: z.record(z.string().regex(/^\d+$/, 'chains are keyed by service id'), ChainConfig).default({}),
    listener: ListenerConfig.default(() => ListenerConfig.parse({})),
    desktop: DesktopConfig.default(() => DesktopConfig.parse({})),
    sources: z
      .record(z.string().regex(sourceNamePattern, 'a source name is letters, digits, _ . -'), SourceConfig)
      .default({}),
    forward: ForwardConfig.default(() => ForwardConfig.parse({})),
    ...PaymentsConfigShape,
    alerts: AlertsConfig.default(() => AlertsConfig.parse({})),
    storage: StorageConfig.default(() => StorageConfig.parse({})),
    replay: ReplayConfig.default(() => ReplayConfig.parse({})),
    retention: RetentionConfig.default(() => RetentionConfig.parse({})),
    sync: SyncConfig.default(() => SyncConfig.parse({})),
    drift: DriftConfig.default(() => DriftConfig.parse({})),
    clock: ClockConfig.default(() => ClockConfig.parse({})),
  })
  .strict()

/** An older config.json stays valid: `notifications.eventTypes` (the desktop's own notifications,
 * before alerts had a desktop channel) said what `alerts.eventTypes` says now. It is taken as
 * `alerts.eventTypes` when that is not set, and dropped when it is. Anything else under
 * `notifications`, or values of the wrong shape, pass unchanged so the error names them. */
export function liftLegacyKeys(input: unknown): unknown {
  if (!isRecord(input) || !isRecord(input.notifications)) return input
  const { notifications, ...rest } = input
  const { eventTypes, ...others } = notifications
  if (Object.keys(others).length > 0) return input
  if (rest.alerts !== undefined && !isRecord(rest.alerts)) return input
  const alerts = rest.alerts ?? {}
  if (eventTypes === undefined || 'eventTypes' in alerts) return rest
  return { ...rest, alerts: { ...alerts, eventTypes } }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export const Config = z.preprocess(liftLegacyKeys, ConfigObject)
export type Config = z.infer<typeof ConfigObject>
export type ConfigInput = z.input<typeof ConfigObject>

export const defaultConsolePort = 7420

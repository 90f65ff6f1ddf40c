import { ok } from '../shared/result'
import type { Result } from '../shared/result'
import type { AppContext } from './context'
import { createBatchedPublisher, startWebhooks } from './webhooks'
import {
  logRetentionRun,
  readRetentionState,
  registerRetentionMetrics,
  sqliteRetentionTarget,
  startRetention,
} from './db/retention'
import type { Retention } from './db/retention'
import { commitHooks, retentionRules } from './contributions'
import type { WebhookService } from './webhooks'
import { startChainsService } from './chains'
import type { ChainsService } from './chains'
import { startPayments } from './payments'
import type { PaymentsService } from './payments'
import { alertLinkBase, startAlerts } from './alerts'
import type { AlertsService } from './alerts'
import type { PollClock } from '../shared/clock'
import { startSources } from './sources'
import type { SourcesService } from './sources'
import { startForward } from './forward'
import type { AdhocTarget, AttemptReport, ForwardService } from './forward'
import { startPublicUrlWatch } from './webhooks'
import { registerReplayMetrics, startReplaySentinel } from './replay'
import type { ReplaySentinel } from './replay'
import { startClockGuard } from './clock'
import type { ClockGuard } from './clock'
import type { PublicUrlWatch } from './webhooks'
import { registerDriftMetrics, startDriftWatch } from './drift'
import type { DriftWatch } from './drift'
import { startDisablement } from './disablement'
import type { DisablementWatch } from './disablement'

/** The long-running parts of each capability (listener, poller, payments client), started in
 * `startServices` and stopped in reverse order; api.ts maps contract methods onto them. */
export interface Services {
  /** Webhook listener and the events store (issue 3). */
  webhooks: WebhookService
  /** Poller of the twelve networks, health and history (issue 4). */
  chains: ChainsService
  /** Keys, businesses, wallets, webhook endpoints over the one payments client (issue 5). */
  payments: PaymentsService
  /** Rules, incidents, channels, mutes (issue 13). */
  alerts: AlertsService
  /** Relays this console follows (issue 12). */
  sources: SourcesService
  /** Outbox, dispatcher, replay and the authorization relay (issue 11). */
  forward: ForwardService
  /** Redeliveries classified against the retry ladder; suspected replays alerted (issue 32.1). */
  replay: ReplaySentinel
  /** listener.publicUrl re-checked periodically: does it reach this listener (issue 10)? */
  publicUrl: PublicUrlWatch
  /** Each event type's payload shape learned; changes warned until acknowledged (issue 32.5). */
  drift: DriftWatch
  /** This machine's clock against the chains, the services' Date and webhooks (issue 32.3). */
  clock: ClockGuard
  /** Per endpoint: when an outage makes the service mark deliveries failed (issue 32.4). */
  disablement: DisablementWatch
  /** The process environment (NODE_EXTRA_CA_CERTS for the public URL's checks). */
  env: NodeJS.ProcessEnv
}

export interface StartedServices {
  services: Services
  stop(): Promise<void>
}

export interface ServiceOptions {
  /** `--listener-port`, over `listener.port` from the config. */
  listenerPort?: number
  /** The process environment (WATCHDESK_BUSINESS_ID). */
  env?: NodeJS.ProcessEnv
  /** The poller's and the alert rules' clock (tests). */
  clock?: PollClock
  /** `--forward-to URL` targets of this run. */
  forwardTo?: AdhocTarget[]
  /** Every finished forward attempt (the `listen` command prints them). */
  onForwardAttempt?: (report: AttemptReport) => void
}

/** The listener, the store and the forwarder: what `listen` runs, and the first part of every
 * back end. Stops the listener first (its last commits), then lets the forwards under way finish. */
export async function startListening(
  ctx: AppContext,
  options: ServiceOptions,
): Promise<{ webhooks: WebhookService; forward: ForwardService; stop(): Promise<number> }> {
  // Forward first, so the listener's first event is routed; it signs with the webhook secrets.
  let webhooks: WebhookService | null = null
  const forward = await startForward(ctx, {
    adhoc: options.forwardTo,
    exclusive: true,
    onAttempt: options.onForwardAttempt,
    webhookSecrets: () => webhooks?.webhookSecrets() ?? new Map(),
  })
  // The screen's push is one subscriber of the committed-events channel: batched per 150 ms for
  // the views (newest kept on overflow, with the count left out); alerts and forward subscribe apart.
  const screen = createBatchedPublisher((payload) => ctx.push.publish('events.appended', payload))
  const offScreen = ctx.committed.subscribe((batch) => screen.add(batch.events.map((e) => e.summary)))
  // Never fails the start: a listener that cannot bind is reported in its status.
  const started = await startWebhooks(ctx, {
    port: options.listenerPort,
    hooks: commitHooks.listener,
    relayAuthorization: (seq, elapsedMs) => forward.relayAuthorization(seq, elapsedMs),
  })
  webhooks = started
  forward.secretsChanged()
  const offSecrets = started.onSecretsChange(() => forward.secretsChanged())
  const retention = startConsoleRetention(ctx, started)
  return {
    webhooks: started,
    forward,
    stop: async () => {
      retention.stop()
      offSecrets.dispose()
      await started.stop()
      offScreen.dispose()
      screen.stop()
      return forward.stop()
    },
  }
}

/** Retention over the console's database, through the commit worker (the one writer). */
function startConsoleRetention(ctx: AppContext, webhooks: WebhookService): Retention {
  const log = ctx.log.child({ part: 'retention' })
  const retention = startRetention({
    config: () => ctx.config().retention,
    target: sqliteRetentionTarget(retentionRules, async (statements) => {
      const done = await webhooks.prune(statements)
      return done.ok ? done : { ok: false, message: done.failure.message }
    }),
    initial: readRetentionState(ctx.db),
    onRun: logRetentionRun(log),
  })
  registerRetentionMetrics(ctx.meters.registry, () => retention.state())
  return retention
}

export async function startServices(
  ctx: AppContext,
  options: ServiceOptions,
): Promise<Result<StartedServices>> {
  const stops: (() => Promise<void>)[] = []
  const { webhooks, forward, stop: stopListening } = await startListening(ctx, options)
  stops.push(async () => void (await stopListening()))
  // The clock guard reads the chains' block stamps and the services' Date headers, and hands the
  // chains its correction (issue 32.3).
  const clock = startClockGuard(ctx, { now: options.clock && (() => options.clock!.now()) })
  stops.push(async () => clock.stop())
  const chains = await startChainsService(ctx, options.clock, clock.references)
  stops.push(() => chains.stop())
  const env = options.env ?? process.env
  const payments = startPayments(ctx, env, clock.references)
  const publicUrl = startPublicUrlWatch(ctx, webhooks, env)
  stops.push(async () => publicUrl.stop())
  // A synced event is forwarded like a local one: the same outbox statement in its transaction.
  const sources = startSources(ctx, { hooks: commitHooks.sources })
  stops.push(() => sources.stop())
  const alerts = startAlerts({
    db: ctx.db,
    config: ctx.config,
    secrets: ctx.secrets,
    env,
    push: ctx.push,
    log: ctx.log,
    storage: ctx.storage,
    meters: ctx.meters,
    clock: options.clock,
    onChainsRound: (listener) => chains.onRound(listener),
    listener: () => webhooks.status(),
    committed: ctx.committed,
    eventsAfter: (seq, limit) => webhooks.store.after(seq, limit),
    eventSummary: (id) => webhooks.store.get(id),
    shell: ctx.shell,
    burstArriving: () => sources.catchingUp(),
    linkBase: () => alertLinkBase(ctx),
  })
  stops.push(() => alerts.stop())
  const replay = startReplay(ctx, alerts, webhooks)
  stops.push(async () => replay.dispose())
  // Other capabilities' status conditions, in the alerts' one status loop.
  const watching = [sources.conditions, forward.conditions].map((source) => alerts.watch(source))
  stops.push(async () => watching.forEach((w) => w.dispose()))
  const drift = startDrift(ctx, webhooks, alerts)
  stops.push(async () => drift.dispose())
  const disablement = startDisablement(ctx, {
    clock: options.clock,
    listener: () => webhooks.status(),
    publicUrl: () => publicUrl.state(),
    listEndpoints: () => payments.listEndpoints(),
    observe: (condition) => alerts.condition(condition),
  })
  stops.push(async () => disablement.dispose())
  const services: Services = {
    webhooks,
    chains,
    payments,
    alerts,
    sources,
    forward,
    replay,
    publicUrl,
    drift,
    clock,
    disablement,
    env,
  }
  return ok({
    services,
    stop: async () => {
      for (const stop of stops.reverse()) await stop()
    },
  })
}

/** The replay sentinel over the listener's committed redeliveries, alerting through the alerts. */
function startReplay(ctx: AppContext, alerts: AlertsService, webhooks: WebhookService): ReplaySentinel {
  const replay = startReplaySentinel({
    db: ctx.db,
    committed: ctx.committed,
    config: () => ctx.config().replay,
    storage: ctx.storage,
    log: ctx.log,
    alert: (a) => alerts.instant(a),
    changed: (status) => ctx.push.publish('replay.status', status),
    eventAt: (seq) => {
      const head = webhooks.store.after(seq - 1, 1)[0]
      return head?.seq === seq ? webhooks.store.get(head.id) : null
    },
  })
  registerReplayMetrics(ctx.meters.registry, () => replay.status())
  return replay
}

/** The payload drift watch: a follower of committed events reading the stored payloads, warning
 * through the alerts' incidents, following acknowledgements made in the config (CLI, hand edits). */
function startDrift(ctx: AppContext, webhooks: WebhookService, alerts: AlertsService): DriftWatch {
  const drift = startDriftWatch({
    db: ctx.db,
    committed: ctx.committed,
    readPage: (seq, limit) => webhooks.store.dataAfter(seq, limit),
    config: () => ctx.config().drift,
    condition: (c) => alerts.condition(c),
    publish: (status) => ctx.push.publish('drift.status', status),
    log: ctx.log.child({ capability: 'drift' }),
    now: () => Date.now(),
  })
  registerDriftMetrics(ctx.meters.registry, () => drift.totals())
  const offConfig = ctx.onConfigChange(() => drift.acknowledgementsChanged())
  return { ...drift, dispose: () => (offConfig.dispose(), drift.dispose()) }
}

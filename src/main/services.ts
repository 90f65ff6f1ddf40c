import { ok } from '../shared/result'
import type { Result } from '../shared/result'
import type { AppContext } from './context'
import { commitHooks, retentionRules } from './contributions'
import { startConsoleWebhooks, startPublicUrlWatch } from './webhooks'
import type { ConsoleWebhookService, PublicUrlWatch } from './webhooks'
import { startChainsService } from './chains'
import type { ChainsService } from './chains'
import { startPayments } from './payments'
import type { PaymentsService } from './payments'
import { startConsoleAlerts } from './alerts'
import type { AlertsService } from './alerts'
import type { PollClock } from '../shared/clock'
import { startSources } from './sources'
import type { SourcesService } from './sources'
import { startForward } from './forward'
import type { AdhocTarget, AttemptReport, ForwardService } from './forward'
import { startReplay } from './replay'
import type { ConsoleReplaySentinel } from './replay'
import { startClockGuard } from './clock'
import type { ClockGuard } from './clock'
import { startDrift } from './drift'
import type { ConsoleDriftWatch } from './drift'
import { startDisablement } from './disablement'
import type { ConsoleDisablementWatch } from './disablement'

/** The long-running parts of each capability (listener, poller, payments client), started in
 * `startServices` and stopped in reverse order; api.ts maps contract methods onto them. */
export interface Services {
  /** Webhook listener and the events store (issue 3). */
  webhooks: ConsoleWebhookService
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
  replay: ConsoleReplaySentinel
  /** listener.publicUrl re-checked periodically: does it reach this listener (issue 10)? */
  publicUrl: PublicUrlWatch
  /** Each event type's payload shape learned; changes warned until acknowledged (issue 32.5). */
  drift: ConsoleDriftWatch
  /** This machine's clock against the chains, the services' Date and webhooks (issue 32.3). */
  clock: ClockGuard
  /** Per endpoint: when an outage makes the service mark deliveries failed (issue 32.4). */
  disablement: ConsoleDisablementWatch
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

/** A started service as the composer stops it: each capability's own stop or dispose. */
type Running = { stop(): unknown } | { dispose(): unknown } | object

async function stopOne(service: Running): Promise<void> {
  if ('stop' in service) await service.stop()
  else if ('dispose' in service) await service.dispose()
}

/** Each capability's start, in start order, given what it needs of the others: wiring only (the
 * behaviour is in each capability's start). A need on a service started later is read when
 * called, not at start (the forwarder signs with the listener's secrets). */
type Starts<K extends keyof Services> = { [N in K]: () => Promise<Services[N]> | Services[N] }

/** Runs `starts` in order into `services`; stops what started, in reverse order. */
async function startAll<K extends keyof Services>(
  services: Partial<Services>,
  starts: Starts<K>,
): Promise<() => Promise<void>> {
  const running: Running[] = []
  for (const name of Object.keys(starts) as K[]) {
    const service = await starts[name]()
    services[name] = service
    running.push(service)
  }
  return async () => {
    for (const service of running.reverse()) await stopOne(service)
  }
}

const listening = (ctx: AppContext, s: Partial<Services>, options: ServiceOptions) =>
  ({
    // Forward first, so the listener's first event is routed.
    forward: () =>
      startForward(ctx, {
        adhoc: options.forwardTo,
        exclusive: true,
        onAttempt: options.onForwardAttempt,
        webhookSecrets: () => s.webhooks?.webhookSecrets() ?? new Map(),
      }),
    webhooks: () =>
      startConsoleWebhooks(ctx, {
        port: options.listenerPort,
        hooks: commitHooks.listener,
        retentionRules,
        relayAuthorization: (seq, elapsedMs) => s.forward!.relayAuthorization(seq, elapsedMs),
        secretsChanged: (secrets) => s.forward!.secretsChanged(secrets),
      }),
  }) satisfies Starts<'forward' | 'webhooks'>

/** The listener, the store and the forwarder: what `listen` runs, and the first part of every
 * back end. Stops the listener first (its last commits), then lets the forwards under way finish. */
export async function startListening(
  ctx: AppContext,
  options: ServiceOptions,
): Promise<{ webhooks: ConsoleWebhookService; forward: ForwardService; stop(): Promise<number> }> {
  const s: Partial<Services> = {}
  await startAll(s, listening(ctx, s, options))
  const { webhooks, forward } = s as Pick<Services, 'webhooks' | 'forward'>
  return {
    webhooks,
    forward,
    // The listener first (its last commits), then the forwards under way: how many were left.
    stop: async () => {
      await webhooks.stop()
      return forward.stop()
    },
  }
}

/** Every capability's start after the listener's, in order, wired to what it needs. */
const others = (ctx: AppContext, s: Services, options: ServiceOptions) =>
  ({
    // The clock guard reads the chains' block stamps and the services' Date headers, and hands the
    // chains its correction (issue 32.3).
    clock: () => startClockGuard(ctx, { now: options.clock && (() => options.clock!.now()) }),
    chains: () => startChainsService(ctx, options.clock, s.clock.references),
    payments: () => startPayments(ctx, s.env, s.clock.references),
    publicUrl: () => startPublicUrlWatch(ctx, s.webhooks, s.env),
    // A synced event is forwarded like a local one: the same outbox statement in its transaction.
    sources: () => startSources(ctx, { hooks: commitHooks.sources }),
    alerts: () =>
      startConsoleAlerts(ctx, {
        env: s.env,
        clock: options.clock,
        onChainsRound: (listener) => s.chains.onRound(listener),
        listener: () => s.webhooks.status(),
        eventsAfter: (seq, limit) => s.webhooks.store.after(seq, limit),
        eventSummary: (id) => s.webhooks.store.get(id),
        burstArriving: () => s.sources.catchingUp(),
        conditions: [s.sources.conditions, s.forward.conditions],
      }),
    replay: () =>
      startReplay(ctx, {
        alert: (a) => s.alerts.instant(a),
        eventsAfter: (seq, limit) => s.webhooks.store.after(seq, limit),
        eventById: (id) => s.webhooks.store.get(id),
      }),
    drift: () =>
      startDrift(ctx, {
        readPage: (seq, limit) => s.webhooks.store.dataAfter(seq, limit),
        condition: (c) => s.alerts.condition(c),
      }),
    disablement: () =>
      startDisablement(ctx, {
        clock: options.clock,
        listener: () => s.webhooks.status(),
        publicUrl: () => s.publicUrl.state(),
        listEndpoints: () => s.payments.listEndpoints(),
        observe: (condition) => s.alerts.condition(condition),
      }),
  }) satisfies Starts<Exclude<keyof Services, 'forward' | 'webhooks' | 'env'>>

export async function startServices(
  ctx: AppContext,
  options: ServiceOptions,
): Promise<Result<StartedServices>> {
  const listened = await startListening(ctx, options)
  const { webhooks, forward } = listened
  // Filled in start order: each start reads only what started before it (the order of `others`).
  const services = { env: options.env ?? process.env, webhooks, forward } as Services
  const stopOthers = await startAll(services, others(ctx, services, options))
  return ok({
    services,
    stop: async () => {
      await stopOthers()
      await listened.stop()
    },
  })
}

import type { Database } from 'better-sqlite3'
import type { Config } from '../../shared/config'
import type { Alert, ChannelInfo, RuleInfo } from '../../shared/contract/alerts'
import type { ChainsSnapshot } from '../../shared/contract/chains'
import type { ListenerStatus, EventSummary } from '../../shared/contract/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { PollClock } from '../../shared/clock'
import { systemPollClock } from '../../shared/clock'
import { DisposableStore, toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import type { StorageHealth } from '../db'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import type { SecretStore } from '../secrets'
import type { Meters } from '../meters'
import type { CommittedEvents } from '../committed'
import { describeChannel, readChannelSecret } from './channels'
import { watchChainRounds } from './chain-watch'
import { IncidentEngine } from './engine'
import { followCommittedEvents } from './event-cursor'
import type { EventHead } from './event-alerts'
import { alertRecords } from './records'
import type { AlertRecords } from './records'
import { ruleCatalog, severityOf } from './rules'
import type { Condition } from './rules'
import type { ConditionSource } from '../contribution'
import type { AppContext } from '../context'
import { alertLinkBase } from './link-base'
import type { Registry } from 'prom-client'
import { createAlertSender } from './sender'
import type { AlertSender } from './sender'
import { watchStatus } from './status-rules'
import { createAlertStore } from './store'
import type { AlertStore } from './store'
import { testAlert, testChannelNames } from './test-alert'
import { guardedWrites } from './parts'
import type { AlertParts, GuardedWrite } from './parts'

export { createMeters } from '../meters'
export type { Meters } from '../meters'
export { formatDuration } from './duration'
export { engineConfirm, ruleCatalog } from './rules'
export type { Condition } from './rules'
export { channelAccount, channelEnvName } from './channels'
export { createAlertStore } from './store'
export { testAlert, testChannelNames } from './test-alert'
export {
  checkChannelSecret,
  describeChannel,
  readChannelSecret,
  sendAlert,
  storeChannelSecret,
} from './channels'

export interface AlertsDeps {
  db: Database
  config(): Config
  secrets: SecretStore
  env: NodeJS.ProcessEnv
  push: PushBus
  log: Logger
  storage: StorageHealth
  meters: Meters
  clock?: PollClock
  /** The chains capability's rounds (statuses after each burst of polls). */
  onChainsRound(listener: (snapshot: ChainsSnapshot) => void): Disposable
  /** The webhook listener's status; null when there is none. */
  listener(): ListenerStatus | null
  /** The committed-events channel (lossless): wakes the event rule, feeds quiet-endpoint tracking. */
  committed: CommittedEvents
  /** Stored events after `seq` (first deliveries only, oldest first, at most `limit`): what the
   * alerts' durable cursor reads, so an event committed before a crash is still alerted after it. */
  eventsAfter(seq: number, limit: number): EventHead[]
  /** One stored event's summary (funding line, data id, source) for an alert about it alone. */
  eventSummary(id: string): EventSummary | null
  /** True while a burst is still arriving (a relay source catching up): the event rule waits for
   * its end (at most `burstHoldMs`) so that the burst gives one summary per rule, not one per page. */
  burstArriving?(): boolean
  /** The shell: in serve mode a desktop alert is shown by a console page, in the app by the shell. */
  shell: 'electron' | 'serve'
  /** Where links in alerts point: the console's base URL, or the desktop deep-link base; null
   * when nothing can open a link (no console listens). The token is never part of it. */
  linkBase?(): string | null
}

export interface AlertsService extends AlertRecords {
  channels(): Promise<{ channels: ChannelInfo[]; rules: RuleInfo[] }>
  /** A test alert to one channel (or all enabled ones); recorded like any other. */
  test(channel?: string): Promise<Result<{ channel: string; ok: boolean; detail: string | null }[]>>
  /** For other capabilities (relay sources, forward targets): report a state a rule watches,
   * observed like the others (`confirm` debounces it; `engineConfirm` is the rules' own). */
  condition(c: Condition): void
  /** For other capabilities: one alert about a thing that happened (no incident to close), recorded
   * and sent like the others unless its rule is disabled (the replay sentinel's). */
  instant(a: Pick<Alert, 'rule' | 'subject' | 'title' | 'body'>): void
  /** Another capability's conditions, looked at now and then with the status rules in the one
   * status loop, until disposed. */
  watch(source: ConditionSource): Disposable
  /** Registers the open incidents for `GET /metrics`. */
  metrics(registry: Registry): Promise<void>
  /** serve mode: how many console pages are open (their push streams), for the desktop channel. */
  attachConsole(pages: () => number): Disposable
  /** Resolves once every alert queued so far went through its channels (tests, shutdown). */
  idle(): Promise<void>
  stop(): Promise<void>
}

/** Rules over what the poller, the listener and the storage already measure → incidents →
 * channels, with mutes, reminders and recovery. Every alert on every channel is recorded. The
 * parts: the outbox and its sender, the incident engine, the chain rules, the event cursor, the
 * status rules, and the records the console reads. */
export function startAlerts(deps: AlertsDeps): AlertsService {
  const clock = deps.clock ?? systemPollClock
  const log = deps.log.child({ capability: 'alerts' })
  const store = createAlertStore(deps.db)
  const cfg = () => deps.config().alerts
  const writing = guardedWrites(deps.storage)
  const owned = new DisposableStore()
  let consolePages: () => number = () => 0
  let stopped = false
  const isStopped = () => stopped
  const openCount = () => engine.openCount()

  const parts: AlertParts = {
    store,
    config: cfg,
    clock,
    log,
    writing,
    storage: deps.storage,
    push: deps.push,
  }
  const sender = createAlertSender({
    ...parts,
    secrets: deps.secrets,
    env: deps.env,
    shell: deps.shell,
    linkBase: () => deps.linkBase?.() ?? null,
    consolePages: () => consolePages(),
    openCount,
    stopped: isStopped,
  })
  const engine = incidentEngine(store, cfg, clock, writing, sender)
  const observe = (conditions: Condition[]) => {
    engine.observe(conditions)
    engine.remind()
  }
  const instant = (a: Pick<Alert, 'rule' | 'subject' | 'serviceId' | 'title' | 'body'>) => {
    if (cfg().disabledRules.includes(a.rule)) return
    sender.enqueue({
      ...a,
      t: clock.now(),
      kind: 'event',
      severity: severityOf(a.rule),
      incidentId: null,
      durationMs: null,
    })
  }

  owned.add(
    watchChainRounds({
      onChainsRound: (listener) => deps.onChainsRound(listener),
      minFailures: () => cfg().minFailures,
      observe,
      instant,
      stopped: isStopped,
    }),
  )
  // Owed from before a restart: outbox rows not answered, then events committed but not alerted.
  sender.drain()
  const events = owned.add(
    followCommittedEvents({
      store,
      committed: deps.committed,
      eventsAfter: (seq, limit) => deps.eventsAfter(seq, limit),
      eventSummary: (id) => deps.eventSummary(id),
      burstArriving: () => deps.burstArriving?.() ?? false,
      config: cfg,
      clock,
      writing,
      enqueueAll: (alerts, cursor) => sender.enqueueAll(alerts, cursor),
      stopped: isStopped,
    }),
  )
  const watched = new Set<ConditionSource>()
  owned.add(
    watchStatus({
      watched: () => [...watched].flatMap((source) => source()),
      clock,
      config: cfg,
      listener: () => deps.listener(),
      signatureRejections: () => deps.meters.signatureRejections(),
      storage: () => deps.storage.status(),
      lastEventAt: (endpoint) => events.lastEventAt(endpoint),
      observe,
      stopped: isStopped,
    }),
  )

  const records = alertRecords({ ...parts, openCount })
  return {
    ...records,
    async channels() {
      const disabled = cfg().disabledRules
      const channels = await Promise.all(
        Object.entries(cfg().channels).map(async ([name, c]) =>
          describeChannel(name, c, await readChannelSecret(name, c, deps.secrets, deps.env)),
        ),
      )
      return { channels, rules: ruleCatalog.map((r) => ({ ...r, enabled: !disabled.includes(r.id) })) }
    },
    async test(channel) {
      const channels = cfg().channels
      if (channel !== undefined && !channels[channel])
        return err(
          'not_found',
          `There is no alert channel "${channel}": add it under alerts.channels in the config.`,
        )
      return ok(await sender.test(testAlert(clock.now()), testChannelNames(channels, channel)))
    },
    condition: (c) => observe([c]),
    instant: (a) => instant({ ...a, serviceId: null }),
    metrics: async (registry) => (await import('./metrics')).registerAlertMetrics(registry, records),
    watch(source) {
      watched.add(source)
      if (!stopped) observe(source())
      return toDisposable(() => watched.delete(source))
    },
    attachConsole(pages) {
      consolePages = pages
      return toDisposable(() => {
        if (consolePages === pages) consolePages = () => 0
      })
    },
    idle: async () => {
      for (;;) {
        // Events committed but not read yet (the coalescing pause, a backlog's next page, a commit
        // whose notice is still on its way) are read now.
        if (events.flush()) continue
        const current = sender.queued()
        await current
        if (current === sender.queued() && !events.pending()) return
      }
    },
    async stop() {
      stopped = true
      owned.dispose()
      await sender.queued()
      events.persist()
    },
  }
}

/** The incident engine over the alert store: opens and closes incidents durably (a storage fault
 * never stops an alert) and hands each alert to the sender; open incidents survive a restart. */
function incidentEngine(
  store: AlertStore,
  cfg: () => Config['alerts'],
  clock: PollClock,
  writing: GuardedWrite,
  sender: AlertSender,
): IncidentEngine {
  const engine = new IncidentEngine({
    now: () => clock.now(),
    open: (c, at) =>
      writing(
        'alert incident',
        () =>
          store.openIncident({
            rule: c.rule,
            subject: c.subject,
            serviceId: c.serviceId,
            severity: c.severity,
            title: c.title,
            detail: c.body,
            openedAt: at,
            causes: c.causes,
          }),
        null,
      ),
    update: (id, i) => writing('alert incident', () => store.updateIncident(id, i), undefined),
    close: (id, at, reason, causes) =>
      writing('alert incident', () => store.closeIncident(id, at, reason, causes), undefined),
    emit: (alert) => sender.enqueue(alert),
    repeatMs: () => cfg().repeatMinutes * 60_000,
    disabled: (rule) => cfg().disabledRules.includes(rule),
  })
  engine.restore(writing('alert incidents', () => store.openIncidents(), []))
  return engine
}
export { contribution } from './contribution'
export { alertLinkBase } from './link-base'

/** What the console's alerts need of the others (services.ts wires them). */
export type AlertsNeeds = Pick<
  AlertsDeps,
  'clock' | 'onChainsRound' | 'listener' | 'eventsAfter' | 'eventSummary' | 'burstArriving'
> & {
  env: NodeJS.ProcessEnv
  /** Other capabilities' status conditions, looked at in the one status loop (`watch`). */
  conditions: readonly ConditionSource[]
}

/** The console's alerts over its database, config, keychain and push, links to its own address,
 * watching the other capabilities' conditions until stopped. */
export function startConsoleAlerts(ctx: AppContext, needs: AlertsNeeds): AlertsService {
  const { conditions, ...deps } = needs
  const alerts = startAlerts({
    ...deps,
    db: ctx.db,
    config: ctx.config,
    secrets: ctx.secrets,
    push: ctx.push,
    log: ctx.log,
    storage: ctx.storage,
    meters: ctx.meters,
    committed: ctx.committed,
    shell: ctx.shell,
    linkBase: () => alertLinkBase(ctx),
  })
  const watching = conditions.map((source) => alerts.watch(source))
  return {
    ...alerts,
    stop: async () => {
      watching.forEach((w) => w.dispose())
      await alerts.stop()
    },
  }
}

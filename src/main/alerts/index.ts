import type { Database } from 'better-sqlite3'
import type { Config } from '../../shared/config'
import type { ChannelConfig } from '../../shared/alerts/config'
import type {
  Alert,
  AlertRecord,
  ChannelInfo,
  Incident,
  MuteInfo,
  RuleInfo,
} from '../../shared/contract/alerts'
import type { ChainsSnapshot } from '../../shared/contract/chains'
import type { ListenerStatus, EventSummary } from '../../shared/contract/events'
import { shouldNotify } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { PollClock } from '../../shared/clock'
import { systemPollClock } from '../../shared/clock'
import type { StorageHealth } from '../db'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import type { SecretStore } from '../secrets'
import { describeChannel, readChannelSecret, sendAlert } from './channels'
import { IncidentEngine } from './engine'
import type { Meters } from '../meters'
import { describeConsoleMute, describeWindow, mutedBy } from './mute'
import { chainConditions, ruleCatalog, severityOf } from './rules'
import type { Condition } from './rules'
import { createAlertStore } from './store'
import { alertTarget, consoleLink } from '../../shared/links'
import { testAlert, testChannelNames } from './test-alert'

export { createMeters } from '../meters'
export type { Meters } from '../meters'
export { formatDuration } from './duration'
export { engineConfirm, ruleCatalog } from './rules'
export type { Condition } from './rules'
export { channelAccount, channelEnvName } from './channels'
export { createAlertStore } from './store'
export { testAlert, testChannelNames } from './test-alert'

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
  onChainsRound(listener: (snapshot: ChainsSnapshot) => void): () => void
  /** The webhook listener's status; null when there is none. */
  listener(): ListenerStatus | null
  /** Where links in alerts point: the console's base URL, or the desktop deep-link base; null
   * when nothing can open a link (no console listens). The token is never part of it. */
  linkBase?(): string | null
}

export interface AlertsService {
  incidents(filter: { serviceId?: number; rule?: string; open?: boolean; limit: number }): Result<Incident[]>
  log(limit: number, incidentId?: number): Result<AlertRecord[]>
  channels(): Promise<{ channels: ChannelInfo[]; rules: RuleInfo[] }>
  /** A test alert to one channel (or all enabled ones); recorded like any other. */
  test(channel?: string): Promise<Result<{ channel: string; ok: boolean; detail: string | null }[]>>
  mutes(): MuteInfo[]
  mute(minutes: number, serviceIds?: number[], reason?: string): Result<MuteInfo>
  unmute(id: string): Result<{ removed: boolean }>
  /** For other capabilities (relay sources, forward targets): report a state a rule watches,
   * observed like the others (`confirm` debounces it; `engineConfirm` is the rules' own). */
  condition(c: Condition): void
  /** Resolves once every alert queued so far went through its channels (tests, shutdown). */
  idle(): Promise<void>
  stop(): Promise<void>
}

const checkEveryMs = 5_000

/** Rules over what the poller, the listener and the storage already measure → incidents →
 * channels, with mutes, reminders and recovery. Every alert on every channel is recorded. */
export function startAlerts(deps: AlertsDeps): AlertsService {
  const clock = deps.clock ?? systemPollClock
  const log = deps.log.child({ capability: 'alerts' })
  const store = createAlertStore(deps.db)
  const cfg = () => deps.config().alerts
  let queue: Promise<void> = Promise.resolve()
  let stopped = false

  /** A storage fault must never stop an alert (least of all the storage alert): write, or note why not. */
  const writing = <T>(what: string, write: () => T, fallback: T): T => {
    try {
      const value = write()
      deps.storage.committed()
      return value
    } catch (error) {
      deps.storage.failed(what, error)
      return fallback
    }
  }

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
            severity: severityOf(c.rule),
            title: c.title,
            detail: c.body,
            openedAt: at,
          }),
        null,
      ),
    close: (id, at) => writing('alert incident', () => store.closeIncident(id, at), undefined),
    emit: (alert) => enqueue(alert),
    repeatMs: () => cfg().repeatMinutes * 60_000,
    disabled: (rule) => cfg().disabledRules.includes(rule),
  })
  engine.restore(writing('alert incidents', () => store.openIncidents(), []))

  function enqueue(alert: Alert, only?: string): void {
    queue = queue
      .then(() => dispatch(alert, only))
      .then(
        () => undefined,
        (error: unknown) => log.error('alert dispatch failed', { error }),
      )
  }

  async function dispatch(
    alert: Alert,
    only?: string,
  ): Promise<{ channel: string; ok: boolean; detail: string | null }[]> {
    const results: { channel: string; ok: boolean; detail: string | null }[] = []
    const channels = Object.entries(cfg().channels).filter(([name, c]) =>
      only !== undefined ? name === only : c.enabled && (!c.rules || c.rules.includes(alert.rule)),
    )
    const muted =
      alert.kind === 'test'
        ? null
        : mutedBy(
            cfg().mute,
            writing('alert mutes', () => store.mutes(alert.t), []),
            alert,
            alert.t,
          )
    for (const [name, channel] of channels) {
      if (muted) {
        writing('alert log', () => store.record(alert, name, 'muted', muted), undefined)
        results.push({ channel: name, ok: true, detail: muted })
        continue
      }
      const sent = await send(name, channel, alert)
      const detail = sent.ok ? sent.value : sent.error.message
      if (!sent.ok) log.warn('alert not delivered', { channel: name, rule: alert.rule, detail })
      writing('alert log', () => store.record(alert, name, sent.ok ? 'sent' : 'failed', detail), undefined)
      results.push({ channel: name, ok: sent.ok, detail })
    }
    deps.push.publish('alerts.changed', { openIncidents: engine.openCount() })
    return results
  }

  async function send(name: string, channel: ChannelConfig, alert: Alert): Promise<Result<string>> {
    const secret = await readChannelSecret(name, channel, deps.secrets, deps.env)
    if (secret.problem && channel.type !== 'email') return err('unavailable', secret.problem)
    const base = deps.linkBase?.() ?? null
    const link = base ? consoleLink(base, alertTarget(alert)) : null
    return sendAlert(name, channel, alert, { push: deps.push, secret, link })
  }

  const observe = (conditions: Condition[]) => {
    for (const c of conditions) engine.observe(c)
    engine.remind()
  }

  // Chains: every round.
  const reorgsSeen = new Map<number, number>()
  const offChains = deps.onChainsRound((snapshot) => {
    if (stopped) return
    observe(chainConditions(snapshot))
    for (const c of snapshot.chains) {
      const before = reorgsSeen.get(c.serviceId)
      reorgsSeen.set(c.serviceId, c.reorgs)
      if (before === undefined || c.reorgs <= before || !c.lastReorg) continue
      instant({
        rule: 'chain.reorg',
        subject: `chain:${c.serviceId}`,
        serviceId: c.serviceId,
        title: `${c.name} reorganised ${c.lastReorg.depth} block${c.lastReorg.depth === 1 ? '' : 's'} deep`,
        body: `The block at height ${c.lastReorg.height} changed hash (${c.reorgs} reorganisation${c.reorgs === 1 ? '' : 's'} since start).`,
      })
    }
  })

  function instant(a: Pick<Alert, 'rule' | 'subject' | 'serviceId' | 'title' | 'body'>): void {
    if (cfg().disabledRules.includes(a.rule)) return
    enqueue({
      ...a,
      t: clock.now(),
      kind: 'event',
      severity: severityOf(a.rule),
      incidentId: null,
      durationMs: null,
    })
  }

  // Events: the committed ones, as the push bus carries them.
  const lastEventAt = new Map<string, number>()
  const startedAt = clock.now()
  const offPush = deps.push.subscribe((message) => {
    if (stopped || message.topic !== 'events.appended') return
    const events = message.payload.events as EventSummary[]
    for (const e of events) {
      lastEventAt.set(e.endpoint ?? '*', clock.now())
      lastEventAt.set('*', clock.now())
    }
    const alerting = events.filter((e) => shouldNotify(e.type, cfg().eventTypes))
    if (alerting.length > 3) {
      const types = [...new Set(alerting.map((e) => e.type))]
      instant({
        rule: 'event.type',
        subject: 'events',
        serviceId: null,
        title: `${alerting.length} alerting events`,
        body: types.join(', '),
      })
    } else
      for (const e of alerting)
        instant({
          rule: 'event.type',
          subject: `event:${e.id}`,
          serviceId: null,
          title: e.type,
          body: [e.fundingLine, e.dataId, e.id].filter(Boolean).join(' · '),
        })
  })

  // Listener, storage and quiet endpoints: every few seconds.
  const rejections: { t: number; n: number }[] = []
  let cancelCheck: (() => void) | null = null
  function check(): void {
    cancelCheck = null
    if (stopped) return
    const now = clock.now()
    const conditions: Condition[] = []
    const listener = deps.listener()
    if (listener) {
      conditions.push({
        rule: 'listener.down',
        subject: 'listener',
        serviceId: null,
        name: 'Webhook listener',
        active: !listener.listening,
        title: 'Webhook listener not listening',
        body: listener.problem ?? 'The listener is not running.',
      })
    }
    rejections.push({ t: now, n: deps.meters.signatureRejections() })
    while (rejections.length > 1 && rejections[0]!.t < now - 60_000) rejections.shift()
    const inMinute = rejections.at(-1)!.n - rejections[0]!.n
    conditions.push({
      rule: 'listener.rejections',
      subject: 'listener',
      serviceId: null,
      name: 'Signature rejections',
      active: inMinute > cfg().rejectionsPerMinute,
      title: `${inMinute} signature rejections in a minute`,
      body: `Deliveries with a signature that matches no stored secret: a wrong or rotated webhook secret, or someone else posting. The limit is ${cfg().rejectionsPerMinute} a minute (alerts.rejectionsPerMinute).`,
    })
    const storage = deps.storage.status()
    conditions.push({
      rule: 'storage.fault',
      subject: 'storage',
      serviceId: null,
      name: 'Storage',
      active: storage.state !== 'ok',
      title: `Storage ${storage.state}`,
      body: [storage.cause, storage.fix].filter(Boolean).join(' '),
    })
    for (const [endpoint, minutes] of Object.entries(cfg().quietMinutes)) {
      const last = lastEventAt.get(endpoint) ?? startedAt
      conditions.push({
        rule: 'listener.quiet',
        subject: `endpoint:${endpoint}`,
        serviceId: null,
        name: endpoint === '*' ? 'Events' : `Endpoint ${endpoint}`,
        active: now - last > minutes * 60_000,
        title: `No events ${endpoint === '*' ? '' : `on ${endpoint} `}for ${minutes} min`,
        body: `The last event arrived ${new Date(last).toISOString()}; alerts.quietMinutes.${endpoint} is ${minutes}.`,
      })
    }
    observe(conditions)
    cancelCheck = clock.after(checkEveryMs, check)
  }
  check()

  const channelList = async () =>
    Promise.all(
      Object.entries(cfg().channels).map(async ([name, c]) =>
        describeChannel(name, c, await readChannelSecret(name, c, deps.secrets, deps.env)),
      ),
    )

  return {
    incidents: (filter) => {
      try {
        return ok(store.incidents(filter))
      } catch (error) {
        deps.storage.failed('alert incidents', error)
        return err('unavailable', `Incidents could not be read: ${(error as Error).message}`)
      }
    },
    log: (limit, incidentId) => {
      try {
        return ok(store.log(limit, incidentId))
      } catch (error) {
        deps.storage.failed('alert log', error)
        return err('unavailable', `The alert log could not be read: ${(error as Error).message}`)
      }
    },
    async channels() {
      const disabled = cfg().disabledRules
      return {
        channels: await channelList(),
        rules: ruleCatalog.map((r) => ({ ...r, enabled: !disabled.includes(r.id) })),
      }
    },
    async test(channel) {
      const channels = cfg().channels
      if (channel !== undefined && !channels[channel])
        return err(
          'not_found',
          `There is no alert channel "${channel}": add it under alerts.channels in the config.`,
        )
      const alert = testAlert(clock.now())
      const names = testChannelNames(channels, channel)
      const results: { channel: string; ok: boolean; detail: string | null }[] = []
      for (const name of names) {
        const done = queue.then(() => dispatch(alert, name))
        queue = done.then(() => undefined).catch(() => undefined)
        results.push(...(await done))
      }
      return ok(results)
    },
    mutes() {
      const now = clock.now()
      return [
        ...cfg().mute.map((w, i) => describeWindow(w, i, now)),
        ...writing('alert mutes', () => store.mutes(now), []).map((m) => describeConsoleMute(m, now)),
      ]
    },
    mute(minutes, serviceIds, reason) {
      const now = clock.now()
      try {
        const m = store.addMute(
          {
            from: now,
            to: now + minutes * 60_000,
            chains: serviceIds?.length ? serviceIds : null,
            reason: reason ?? null,
          },
          now,
        )
        log.info('alerts muted from the console', { minutes, chains: m.chains })
        return ok(describeConsoleMute(m, now))
      } catch (error) {
        deps.storage.failed('alert mute', error)
        return err('unavailable', `The mute could not be stored: ${(error as Error).message}`)
      }
    },
    unmute(id) {
      const n = Number(id)
      if (!Number.isInteger(n))
        return err(
          'bad_request',
          `"${id}" is a maintenance window from the config: edit alerts.mute to change it.`,
        )
      try {
        return ok({ removed: store.removeMute(n) })
      } catch (error) {
        deps.storage.failed('alert mute', error)
        return err('unavailable', `The mute could not be removed: ${(error as Error).message}`)
      }
    },
    condition: (c) => observe([c]),
    idle: async () => {
      for (;;) {
        const current = queue
        await current
        if (current === queue) return
      }
    },
    async stop() {
      stopped = true
      cancelCheck?.()
      offChains()
      offPush.dispose()
      await queue
    },
  }
}

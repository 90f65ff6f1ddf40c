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
import type { CommittedEvents } from '../committed'
import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { eventAlerts } from './event-alerts'
import type { EventHead } from './event-alerts'
import type { OutboxRow } from './store'
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
export { sourceConditions, watchSources } from './source-rule'
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
  /** serve mode: how many console pages are open (their push streams), for the desktop channel. */
  attachConsole(pages: () => number): Disposable
  /** A console page displayed these desktop alerts (alert log ids). */
  shown(ids: number[]): Result<{ marked: number }>
  /** Desktop alerts of the last 24 hours no console page displayed (serve mode). */
  missed(): Result<AlertRecord[]>
  /** Resolves once every alert queued so far went through its channels (tests, shutdown). */
  idle(): Promise<void>
  stop(): Promise<void>
}

const checkEveryMs = 5_000
/** The longest an event alert waits for a burst (a catch-up) to end before it is sent anyway. */
const burstHoldMs = 30_000

/** Rules over what the poller, the listener and the storage already measure → incidents →
 * channels, with mutes, reminders and recovery. Every alert on every channel is recorded. */
export function startAlerts(deps: AlertsDeps): AlertsService {
  const clock = deps.clock ?? systemPollClock
  const log = deps.log.child({ capability: 'alerts' })
  const store = createAlertStore(deps.db)
  const cfg = () => deps.config().alerts
  let queue: Promise<void> = Promise.resolve()
  let consolePages: () => number = () => 0
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
    close: (id, at, reason) =>
      writing('alert incident', () => store.closeIncident(id, at, reason), undefined),
    emit: (alert) => enqueue(alert),
    repeatMs: () => cfg().repeatMinutes * 60_000,
    disabled: (rule) => cfg().disabledRules.includes(rule),
  })
  engine.restore(writing('alert incidents', () => store.openIncidents(), []))

  /** Channels an alert goes to: enabled ones that take its rule. */
  const channelsFor = (alert: Alert) =>
    Object.entries(cfg().channels)
      .filter(([, c]) => c.enabled && (!c.rules || c.rules.includes(alert.rule)))
      .map(([name]) => name)

  /** Work on the one alert queue (sends are serial, in order). */
  function work(task: () => Promise<unknown>): void {
    queue = queue.then(task).then(
      () => undefined,
      (error: unknown) => log.error('alert dispatch failed', { error }),
    )
  }

  /** An alert is written to the outbox first (durable), then sent; `cursor` moves the event cursor
   * in the same transaction. When the database takes no writes it is still sent, from memory. */
  function enqueueAll(alerts: Alert[], cursor: number | null = null): boolean {
    const items = alerts.flatMap((alert) => channelsFor(alert).map((channel) => ({ alert, channel })))
    try {
      store.queue(items, cursor, clock.now())
      deps.storage.committed()
    } catch (error) {
      deps.storage.failed('alert outbox', error)
      for (const alert of alerts) work(() => dispatch(alert))
      return false
    }
    if (items.length > 0) work(drainOutbox)
    return true
  }
  const enqueue = (alert: Alert) => void enqueueAll([alert])

  /** Sends what the outbox holds, oldest first; each row is deleted with its log row once the
   * channel answered (sent, failed or muted). A crash before that sends it again after the start. */
  // Rows answered whose log write failed (storage fault): not sent again by this process. Drains run
  // one after the other on the queue, so a row is never in two of them.
  const answered = new Set<number>()
  async function drainOutbox(): Promise<void> {
    for (const row of writing('alert outbox', () => store.pending(), [] as OutboxRow[])) {
      if (answered.has(row.id) || stopped) continue
      await deliver(row)
    }
    deps.push.publish('alerts.changed', { openIncidents: engine.openCount() })
  }

  async function deliver(row: OutboxRow): Promise<void> {
    const { alert, channel: name } = row
    const channel = cfg().channels[name]
    const done = (result: AlertRecord['result'], detail: string | null) => {
      const logId = writing('alert log', () => store.complete(row.id, alert, name, result, detail), null)
      if (logId === null) answered.add(row.id)
      return logId
    }
    if (!channel)
      return void done('failed', `Channel "${name}" was removed from alerts.channels before it was sent.`)
    if (!channel.enabled)
      return void done('failed', `Channel "${name}" was switched off (enabled: false) before it was sent.`)
    const muted = mutedBy(
      cfg().mute,
      writing('alert mutes', () => store.mutes(alert.t), []),
      alert,
      alert.t,
    )
    if (muted) return void done('muted', muted)
    await sendAndRecord(name, channel, alert, done)
  }

  /** Sends on one channel and records the outcome (`write` answers the log row id). A desktop alert
   * in serve mode is shown only by an open console page: it is logged "not shown" and pushed with
   * its log id; the page that displays it confirms (`shown`), the next page that opens shows what
   * none did (`missed`). */
  async function sendAndRecord(
    name: string,
    channel: ChannelConfig,
    alert: Alert,
    write: (result: AlertRecord['result'], detail: string | null) => number | null,
  ): Promise<{ ok: boolean; detail: string | null }> {
    if (channel.type === 'desktop' && deps.shell === 'serve') {
      const pages = consolePages()
      const detail =
        pages === 0
          ? 'not shown: no console open (the next console page that opens shows it)'
          : `not shown yet: sent to ${pages} open console page${pages === 1 ? '' : 's'}`
      const logId = write('not_shown', detail)
      deps.push.publish('alerts.alert', logId === null ? alert : { ...alert, logId })
      return { ok: true, detail }
    }
    const sent = await send(name, channel, alert)
    const detail = sent.ok ? sent.value : sent.error.message
    if (!sent.ok) log.warn('alert not delivered', { channel: name, rule: alert.rule, detail })
    write(sent.ok ? 'sent' : 'failed', detail)
    return { ok: sent.ok, detail }
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
      const sent = await sendAndRecord(name, channel, alert, (result, detail) =>
        writing('alert log', () => store.record(alert, name, result, detail), null),
      )
      results.push({ channel: name, ok: sent.ok, detail: sent.detail })
    }
    deps.push.publish('alerts.changed', { openIncidents: engine.openCount() })
    return results
  }

  async function send(name: string, channel: ChannelConfig, alert: Alert): Promise<Result<string>> {
    const secret = await readChannelSecret(name, channel, deps.secrets, deps.env)
    if (secret.problem && channel.type !== 'email') return err('unavailable', secret.problem)
    const base = deps.linkBase?.() ?? null
    const link = base ? consoleLink(base, alertTarget(alert)) : null
    // Each event an alert covers (all of a burst) links to itself; the base is known only now.
    const linked =
      base && alert.events
        ? {
            ...alert,
            events: alert.events.map((e) => ({
              ...e,
              link: consoleLink(base, { view: 'events', eventId: e.id }),
            })),
          }
        : alert
    return sendAlert(name, channel, linked, { push: deps.push, secret, link })
  }

  const observe = (conditions: Condition[]) => {
    for (const c of conditions) engine.observe(c)
    engine.remind()
  }

  // Chains: every round.
  const reorgsSeen = new Map<number, number>()
  const offChains = deps.onChainsRound((snapshot) => {
    if (stopped) return
    observe(chainConditions(snapshot, cfg().minFailures))
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

  // Events: a durable cursor over committed events (first deliveries, in commit order). Each round
  // reads everything after the cursor, turns it into alerts (a burst into one summary) and writes
  // their outbox rows with the new cursor in one transaction: a crash loses no event's alert and
  // sends none twice (but for one whose channel answered in the instant before the log write).
  const lastEventAt = new Map<string, number>()
  const startedAt = clock.now()
  const pageSize = 10_000
  let cursor = writing('alert event cursor', () => store.eventCursor(), 0)
  // Without alerts to queue, the cursor is made durable at most every `cursorEveryMs` (and on
  // stop): each write is a commit with its fsync on the listener's thread, which first waits for
  // the commit worker's lock, and it came every 200 ms while events arrived (the ingest profile).
  // Events read again after a crash alerted nothing the first time, so none is sent twice.
  let durableCursor = cursor
  let cursorWrittenAt = clock.now()
  const cursorEveryMs = 10_000
  let reading: NodeJS.Timeout | null = null
  let heldSince: number | null = null
  /** A short pause before reading, so commits back to back make one round. */
  const coalesceMs = 200
  function readEvents(force = false): void {
    reading = null
    if (stopped) return
    if (!force && deps.burstArriving?.()) {
      heldSince ??= Date.now()
      if (Date.now() - heldSince < burstHoldMs) return void (reading = setTimeout(readEvents, coalesceMs))
    }
    heldSince = null
    const events = writing('alert events', () => deps.eventsAfter(cursor, pageSize), [] as EventHead[])
    if (events.length === 0) return
    const alerts = cfg().disabledRules.includes('event.type')
      ? []
      : eventAlerts(events, cfg().eventTypes, clock.now(), (e) =>
          writing('alert event', () => deps.eventSummary(e.id), null),
        )
    // Queued with the cursor, or (the database takes no writes) sent from memory: either way this
    // process goes on after them; only the durable cursor lags until the next write succeeds.
    const last = events.at(-1)!.seq
    if (alerts.length > 0 || clock.now() - cursorWrittenAt >= cursorEveryMs) persistCursor(alerts, last)
    cursor = last
    // A long backlog (events stored while only `listen` ran) is read page by page, between turns.
    if (events.length === pageSize) reading = setTimeout(() => readEvents(true), 0)
  }
  function persistCursor(alerts: Alert[], last: number): void {
    if (!enqueueAll(alerts, last)) return
    durableCursor = last
    cursorWrittenAt = clock.now()
  }
  const wakeEvents = () => (reading ??= setTimeout(readEvents, coalesceMs))
  const offCommitted = deps.committed.subscribe((batch) => {
    if (stopped) return
    for (const { summary: e } of batch.events) {
      lastEventAt.set(e.endpoint ?? '*', clock.now())
      lastEventAt.set('*', clock.now())
    }
    if (batch.events.some((e) => !e.duplicate)) wakeEvents()
  })
  // Owed from before a restart: outbox rows not answered, then events committed but not alerted.
  work(drainOutbox)
  readEvents()

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
      const seen = lastEventAt.get(endpoint)
      const last = seen ?? startedAt
      conditions.push({
        rule: 'listener.quiet',
        subject: `endpoint:${endpoint}`,
        serviceId: null,
        name: endpoint === '*' ? 'Events' : `Endpoint ${endpoint}`,
        active: now - last > minutes * 60_000,
        title: `No events ${endpoint === '*' ? '' : `on ${endpoint} `}for ${minutes} min`,
        // Without an event since the start, say so: the start is not an event's arrival.
        body: `${seen === undefined ? `No event since watchdesk started at ${new Date(startedAt).toISOString()}` : `The last event arrived ${new Date(last).toISOString()}`}; alerts.quietMinutes.${endpoint} is ${minutes}.`,
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
    attachConsole(pages) {
      consolePages = pages
      return toDisposable(() => {
        if (consolePages === pages) consolePages = () => 0
      })
    },
    shown(ids) {
      try {
        const marked = store.markShown(ids, 'shown in a console page')
        if (marked > 0) deps.push.publish('alerts.changed', { openIncidents: engine.openCount() })
        return ok({ marked })
      } catch (error) {
        deps.storage.failed('alert log', error)
        return err('unavailable', `The alert log could not be updated: ${(error as Error).message}`)
      }
    },
    missed() {
      try {
        return ok(store.notShown(clock.now() - 24 * 3_600_000))
      } catch (error) {
        deps.storage.failed('alert log', error)
        return err('unavailable', `The alert log could not be read: ${(error as Error).message}`)
      }
    },
    idle: async () => {
      for (;;) {
        // Events committed but not read yet (the coalescing pause, a backlog's next page) are read now.
        if (reading) {
          clearTimeout(reading)
          readEvents(true)
          continue
        }
        const current = queue
        await current
        if (current === queue && !reading) return
      }
    },
    async stop() {
      stopped = true
      cancelCheck?.()
      if (reading) clearTimeout(reading)
      offChains()
      offCommitted.dispose()
      await queue
      if (cursor !== durableCursor) persistCursor([], cursor)
    },
  }
}

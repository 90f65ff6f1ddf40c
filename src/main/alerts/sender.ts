import type { ChannelConfig } from '../../shared/alerts/config'
import type { Alert, AlertRecord } from '../../shared/contract/alerts'
import { alertTarget, consoleLink } from '../../shared/links'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { SecretStore } from '../secrets'
import { readChannelSecret, sendAlert } from './channels'
import { mutedBy } from './mute'
import type { OutboxRow } from './store'
import type { AlertParts } from './parts'

export interface SenderDeps extends AlertParts {
  secrets: SecretStore
  env: NodeJS.ProcessEnv
  shell: 'electron' | 'serve'
  linkBase?(): string | null
  /** serve mode: how many console pages are open (they show desktop alerts). */
  consolePages(): number
  /** Open incidents, for the `alerts.changed` push after each drain. */
  openCount(): number
  stopped(): boolean
}

export type ChannelResult = { channel: string; ok: boolean; detail: string | null }

export interface AlertSender {
  /** Writes the alerts' outbox rows (and moves the event cursor to `cursor`) in one transaction,
   * then sends them; false when the database took no write (they are sent from memory). */
  enqueueAll(alerts: Alert[], cursor?: number | null): boolean
  enqueue(alert: Alert): void
  /** Sends what the outbox holds (rows owed from before a restart). */
  drain(): void
  /** A test alert to the named channels, in turn on the one queue; recorded like any other. */
  test(alert: Alert, names: string[]): Promise<ChannelResult[]>
  /** The queue's tail now: settled once everything queued so far went through its channels. */
  queued(): Promise<void>
}

/** The alert outbox and the one serial send queue: an alert is written to the outbox first
 * (durable), then sent on each channel that takes its rule, muted or not, and recorded. */
export function createAlertSender(deps: SenderDeps): AlertSender {
  const { store, writing, log } = deps
  const cfg = deps.config
  let queue: Promise<void> = Promise.resolve()
  const changed = () => deps.push.publish('alerts.changed', { openIncidents: deps.openCount() })

  const mutedNow = (alert: Alert) =>
    mutedBy(
      cfg().mute,
      writing('alert mutes', () => store.mutes(alert.t), []),
      alert,
      alert.t,
    )

  /** Work on the one alert queue (sends are serial, in order). */
  function work(task: () => Promise<unknown>): void {
    queue = queue.then(task).then(
      () => undefined,
      (error: unknown) => log.error('alert dispatch failed', { error }),
    )
  }

  /** When the database takes no writes the alerts are still sent, from memory. */
  function enqueueAll(alerts: Alert[], cursor: number | null = null): boolean {
    const items = alerts.flatMap((alert) =>
      channelsFor(cfg().channels, alert).map((channel) => ({ alert, channel })),
    )
    try {
      store.queue(items, cursor, deps.clock.now())
      deps.storage.committed()
    } catch (error) {
      deps.storage.failed('alert outbox', error)
      for (const alert of alerts) work(() => dispatch(alert))
      return false
    }
    if (items.length > 0) work(drainOutbox)
    return true
  }

  /** Sends what the outbox holds, oldest first; each row is deleted with its log row once the
   * channel answered (sent, failed or muted). A crash before that sends it again after the start. */
  // Rows answered whose log write failed (storage fault): not sent again by this process. Drains run
  // one after the other on the queue, so a row is never in two of them.
  const answered = new Set<number>()
  async function drainOutbox(): Promise<void> {
    for (const row of writing('alert outbox', () => store.pending(), [] as OutboxRow[])) {
      if (answered.has(row.id) || deps.stopped()) continue
      await deliverAlone(row)
    }
    changed()
  }

  /** One row's failure (a row a newer or older version wrote, a channel that throws) is recorded
   * as that row's failed send: the rows after it still go out, and it is not tried again at every
   * drain (it would hold the queue: each drain stopped at it). */
  async function deliverAlone(row: OutboxRow): Promise<void> {
    try {
      await deliver(row)
    } catch (error) {
      const detail = `could not be sent: ${error instanceof Error ? error.message : String(error)}`
      log.error('alert outbox row failed', { id: row.id, channel: row.channel, error })
      const logId = writing('alert log', () => store.discard(row, detail, deps.clock.now()), null)
      if (logId === null) answered.add(row.id)
    }
  }

  async function deliver(row: OutboxRow): Promise<void> {
    const { alert, channel: name } = row
    if (!alert) throw new Error('its stored alert is not readable (written by another version?)')
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
    const muted = mutedNow(alert)
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
      const pages = deps.consolePages()
      const detail =
        pages === 0
          ? 'not shown: no console open (the next console page that opens shows it)'
          : `not shown yet: sent to ${pages} open console page${pages === 1 ? '' : 's'}`
      const logId = write('not_shown', detail)
      deps.push.publish('alerts.alert', logId === null ? alert : { ...alert, logId })
      return { ok: true, detail }
    }
    const sent = await sendOn(deps, name, channel, alert)
    const detail = sent.ok ? sent.value : sent.error.message
    if (!sent.ok) log.warn('alert not delivered', { channel: name, rule: alert.rule, detail })
    write(sent.ok ? 'sent' : 'failed', detail)
    return { ok: sent.ok, detail }
  }

  /** Sends without the outbox: a test alert, or any alert while the database takes no writes. */
  async function dispatch(alert: Alert, only?: string): Promise<ChannelResult[]> {
    const results: ChannelResult[] = []
    const channels = Object.entries(cfg().channels).filter(([name, c]) =>
      only !== undefined ? name === only : c.enabled && takes(c, alert),
    )
    const muted = alert.kind === 'test' ? null : mutedNow(alert)
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
    changed()
    return results
  }

  return {
    enqueueAll,
    enqueue: (alert) => void enqueueAll([alert]),
    drain: () => work(drainOutbox),
    async test(alert, names) {
      const results: ChannelResult[] = []
      for (const name of names) {
        const done = queue.then(() => dispatch(alert, name))
        queue = done.then(() => undefined).catch(() => undefined)
        results.push(...(await done))
      }
      return results
    },
    queued: () => queue,
  }
}

/** Sends one alert on one channel, with the channel's secret and the console's links (each event an
 * alert covers, all of a burst, links to itself; the base is known only now). */
async function sendOn(
  deps: SenderDeps,
  name: string,
  channel: ChannelConfig,
  alert: Alert,
): Promise<Result<string>> {
  const secret = await readChannelSecret(name, channel, deps.secrets, deps.env)
  if (secret.problem && channel.type !== 'email') return err('unavailable', secret.problem)
  const base = deps.linkBase?.() ?? null
  const link = base ? consoleLink(base, alertTarget(alert)) : null
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

/** Channels an alert goes to: enabled ones that take its rule. */
const channelsFor = (channels: Record<string, ChannelConfig>, alert: Alert) =>
  Object.entries(channels)
    .filter(([, c]) => c.enabled && takes(c, alert))
    .map(([name]) => name)

/** A channel takes an alert when it takes its rule, or any rule that was a cause of its incident. */
const takes = (c: ChannelConfig, alert: Alert) =>
  !c.rules || [alert.rule, ...(alert.causes ?? [])].some((r) => c.rules!.includes(r))

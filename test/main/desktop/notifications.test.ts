import { describe, expect, it } from 'vitest'
import { createAttention } from '../../../src/main/desktop/attention'
import { alertNotification, createUnseenCounter } from '../../../src/main/desktop/notifications'
import type { DesktopNotification } from '../../../src/main/desktop/notifications'
import type { TrayState } from '../../../src/main/desktop/tray-status'
import { silentLogger } from '../../../src/main/log'
import { createPushBus } from '../../../src/main/push'
import type { PushBus } from '../../../src/main/push'
import { defaultNotificationPatterns } from '../../../src/shared/events'
import type { Alert } from '../../../src/shared/contract/alerts'
import type { EventSummary } from '../../../src/shared/contract/events'
import { setBehaviour, useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig } from '../alerts/harness'
import { chain } from './chains-fixture'

const event = (type: string, n = 1): EventSummary => ({
  seq: n,
  id: `evt_${n}`,
  type,
  group: 'payments',
  createdAt: '2026-01-01T00:00:00Z',
  createdAtMs: 0,
  receivedAt: 0,
  lastDeliveryAt: 0,
  deliveries: 1,
  endpoint: null,
  dataId: `fund_${n}`,
  fundingLine: null,
  conflict: false,
})

const alert = (a: Partial<Alert>): Alert => ({
  t: 0,
  rule: 'chain.down',
  subject: 'chain:137',
  serviceId: 137,
  kind: 'fired',
  severity: 'critical',
  title: 'Polygon down',
  body: 'no answer for 30 s',
  incidentId: 1,
  durationMs: null,
  ...a,
})

/** The desktop shell's reading of the push bus, recording what it would show. */
function attend(push: PushBus, options: { focused?: boolean; patterns?: () => readonly string[] } = {}) {
  const trays: TrayState[] = []
  const notes: DesktopNotification[] = []
  const attention = createAttention({
    patterns: options.patterns ?? (() => defaultNotificationPatterns),
    windowFocused: () => options.focused ?? false,
    showTray: (s) => trays.push(s),
    notify: (n) => notes.push(n),
    log: silentLogger,
  })
  const subscription = push.subscribe((m) => attention.handle(m))
  return { trays, notes, attention, subscription }
}

describe('desktop notification of an alert', () => {
  it('keeps critical (on screen until dismissed) for a critical incident opening only', () => {
    expect(alertNotification(alert({}))).toEqual({
      title: 'Polygon down',
      body: 'no answer for 30 s',
      urgency: 'critical',
      route: 'chains',
      link: '#/alerts/incident/1',
    })
    const kinds = (['reminder', 'recovered'] as const).map(
      (kind) => alertNotification(alert({ kind })).urgency,
    )
    expect(kinds).toEqual(['normal', 'normal'])
    // A warning incident (lagging) times out like an event.
    expect(alertNotification(alert({ rule: 'chain.lagging', severity: 'warning' })).urgency).toBe('normal')
  })

  it('opens Chains for a chain alert, Events for an event alert and Alerts for the rest', () => {
    const routed = [
      alert({ rule: 'chain.reorg', kind: 'event', severity: 'info', incidentId: null }),
      alert({
        rule: 'event.type',
        subject: 'event:evt_1',
        serviceId: null,
        kind: 'event',
        title: 'payout.failed',
      }),
      alert({ rule: 'listener.down', subject: 'listener', serviceId: null }),
      alert({ rule: 'test', subject: 'test', serviceId: null, kind: 'test', severity: 'info' }),
    ].map((a) => [alertNotification(a).route, alertNotification(a).urgency])
    expect(routed).toEqual([
      ['chains', 'normal'],
      // An event alert is critical severity but a one-off: normal, the Events view keeps it.
      ['events', 'normal'],
      ['alerts', 'critical'],
      ['alerts', 'normal'],
    ])
  })
})

describe('unseen alerting events', () => {
  it('counts alerting events that arrive while the window is not focused, and resets when seen', () => {
    const unseen = createUnseenCounter()
    expect(
      unseen.add([event('payout.failed'), event('funding.completed')], defaultNotificationPatterns, false),
    ).toBe(1)
    expect(unseen.add([event('payout.failed')], defaultNotificationPatterns, true)).toBe(1)
    expect(unseen.add([event('business.verification.rejected')], defaultNotificationPatterns, false)).toBe(2)
    expect(unseen.markSeen()).toBe(0)
  })
})

describe('desktop attention over the push bus', () => {
  it('drives the tray from chains.status and events.appended, and notifies only from alerts.alert', () => {
    const push = createPushBus()
    const { trays, notes, attention } = attend(push)
    push.publish('chains.status', {
      at: '2026-01-01T00:00:00Z',
      chains: [chain(1, 'Ethereum', 'healthy'), chain(56, 'BNB Smart Chain', 'lagging')],
    })
    expect(trays.at(-1)).toMatchObject({ level: 'warn', worst: 'lagging', unseenAlerts: 0 })
    push.publish('events.appended', { events: [event('payout.failed')], omitted: 0 })
    expect(trays.at(-1)).toMatchObject({ unseenAlerts: 1 })
    push.publish('chains.status', {
      at: '2026-01-01T00:00:05Z',
      chains: [chain(56, 'BNB Smart Chain', 'down')],
    })
    expect(trays.at(-1)).toMatchObject({ level: 'bad', worst: 'down', unseenAlerts: 1 })
    // Neither the raw status change nor the raw event notifies: the alerts capability decides.
    expect(notes).toEqual([])
    push.publish('alerts.alert', alert({ serviceId: 56, subject: 'chain:56', title: 'BNB Smart Chain down' }))
    expect(notes.map((n) => [n.title, n.urgency, n.route])).toEqual([
      ['BNB Smart Chain down', 'critical', 'chains'],
    ])
    attention.markSeen()
    expect(trays.at(-1)).toMatchObject({ level: 'bad', unseenAlerts: 0 })
  })

  it('reads alerts.eventTypes at each batch for the unseen count, so a saved change applies at once', () => {
    const push = createPushBus()
    let patterns: readonly string[] = defaultNotificationPatterns
    const { trays } = attend(push, { patterns: () => patterns })
    push.publish('events.appended', { events: [event('card.created')], omitted: 0 })
    expect(trays.at(-1)).toMatchObject({ unseenAlerts: 0 })
    patterns = ['card.*']
    push.publish('events.appended', { events: [event('card.created')], omitted: 0 })
    expect(trays.at(-1)).toMatchObject({ unseenAlerts: 1 })
  })

  it('carries incidents, events per minute, failing targets and relay sources in the tray summary', () => {
    const push = createPushBus()
    const { trays } = attend(push)
    push.publish('chains.status', {
      at: '2026-01-01T00:00:00Z',
      chains: [chain(1, 'Ethereum', 'healthy'), chain(137, 'Polygon', 'lagging')],
    })
    publishTrayFacts(push)
    expect(trays.at(-1)).toMatchObject({
      level: 'bad',
      summary:
        '2 incidents · 2 chains, 1 lagging · 1 forward target failing · 1 relay source not syncing · 38 events/min',
    })
    // The counts fall back: a closed incident and a recovered target leave the summary at once.
    push.publish('alerts.changed', { openIncidents: 0 })
    push.publish('forward.status', {
      targets: [{ health: 'ok' }],
      authorizationBudgetMs: 2000,
      problem: null,
    } as never)
    expect(trays.at(-1)!.summary).toBe(
      'no incidents · 2 chains, 1 lagging · 1 relay source not syncing · 38 events/min',
    )
  })

  it('ignores a payload of another shape instead of throwing', () => {
    const push = createPushBus()
    const { attention, trays, notes } = attend(push)
    const before = trays.length
    attention.handle({ topic: 'chains.status', payload: { chains: [{ serviceId: 'x' }] } })
    attention.handle({ topic: 'events.appended', payload: 42 })
    attention.handle({ topic: 'alerts.alert', payload: { title: 'no rule, no kind' } })
    attention.handle({ topic: 'alerts.changed', payload: { openIncidents: 'two' } })
    attention.handle({ topic: 'events.listener', payload: { listening: true } })
    expect(trays.length).toBe(before)
    expect(notes).toEqual([])
  })
})

/** The other facts the tray follows, as their capabilities push them (only the fields it reads). */
function publishTrayFacts(push: PushBus): void {
  push.publish('alerts.changed', { openIncidents: 2 })
  push.publish('events.listener', { listening: true, activity: { lastMinute: 38 } } as never)
  push.publish('forward.status', {
    targets: [{ health: 'failing' }, { health: 'ok' }],
    authorizationBudgetMs: 2000,
    problem: null,
  } as never)
  push.publish('sources.status', { sources: [{ state: 'unreachable' }, { state: 'live' }] } as never)
}

/** The real alerts capability (default `desktop` channel) behind the poller and a scripted node,
 * the desktop's attention on the same push bus. */
describe('desktop notifications from the alerts capability', () => {
  const standin = useRpcStandin()
  const rig = useAlertsRig(useTempDir())

  async function setUp(alerts: Record<string, unknown> = {}) {
    const node = await standin(polygon())
    const r = await rig({
      chains: {
        '137': {
          url: node.url,
          pollIntervalMs: 5000,
          stalledAfterSeconds: 86_400,
          laggingAfterSeconds: 86_400,
        },
      },
      alerts,
    })
    const desktop = attend(r.push)
    // What the chains capability publishes after each poll: every status, undebounced.
    const poll = async () => {
      await r.nextPoll()
      r.push.publish('chains.status', r.poller.snapshot())
    }
    return { node, r, desktop, poll }
  }

  it('notifies one chain outage exactly once, after confirmation, and its recovery once', async () => {
    const { node, desktop, poll } = await setUp()
    await setBehaviour(node, 'down')
    await poll()
    await poll()
    expect(desktop.trays.at(-1)).toMatchObject({ worst: 'failing' })
    expect(desktop.notes).toEqual([])
    await poll()
    expect(desktop.trays.at(-1)).toMatchObject({ level: 'bad', worst: 'down' })
    // Still down on the next polls: no second notification (the reminder is an hour away).
    await poll()
    await poll()
    expect(desktop.notes).toEqual([
      {
        title: 'Polygon down',
        body: expect.any(String),
        urgency: 'critical',
        route: 'chains',
        link: expect.stringMatching(/^#\/alerts\/incident\/\d+$/),
      },
    ])
    await setBehaviour(node, 'ok')
    await poll()
    expect(desktop.notes.map((n) => [n.title, n.urgency, n.route])).toEqual([
      ['Polygon down', 'critical', 'chains'],
      // From the first failed poll to the first good one, polled 10 s apart while failing.
      ['Polygon recovered after 50 s', 'normal', 'chains'],
    ])
  })

  it('shows nothing for an outage inside a maintenance window (the alert is recorded as muted)', async () => {
    const { node, r, desktop, poll } = await setUp({
      mute: [{ from: '2026-03-02T09:00:00Z', to: '2026-03-02T12:00:00Z', chains: [137], reason: 'upgrade' }],
    })
    await setBehaviour(node, 'down')
    for (let i = 0; i < 4; i++) await poll()
    expect(desktop.trays.at(-1)).toMatchObject({ worst: 'down' })
    const log = r.alerts.log(10)
    expect(log.ok && log.value.map((l) => [l.rule, l.channel, l.result])).toEqual([
      ['chain.down', 'desktop', 'muted'],
    ])
    expect(desktop.notes).toEqual([])
  })

  it('sums up a burst of alerting events in one notification', async () => {
    const { r, desktop } = await setUp()
    const burst = Array.from({ length: 40 }, (_, i) => ({
      id: `evt_${i}`,
      type: i % 2 ? 'payout.failed' : 'funding.failed',
    }))
    const stored = r.commit([...burst, { id: 'evt_99', type: 'funding.completed' }])
    r.push.publish('events.appended', { events: stored, omitted: 0 })
    await r.alerts.idle()
    expect(desktop.notes).toEqual([
      {
        title: '40 alerting events: 20 funding.failed, 20 payout.failed',
        body: expect.stringContaining('evt_0, evt_1, evt_2'),
        urgency: 'normal',
        route: 'events',
        link: '#/events',
      },
    ])
    expect(desktop.trays.at(-1)).toMatchObject({ unseenAlerts: 40 })
  })
})

import { describe, expect, it } from 'vitest'
import { createAttention } from '../../../src/main/desktop/attention'
import {
  createChainWatch,
  createUnseenCounter,
  eventNotifications,
} from '../../../src/main/desktop/notifications'
import type { DesktopNotification } from '../../../src/main/desktop/notifications'
import type { TrayState } from '../../../src/main/desktop/tray-status'
import { silentLogger } from '../../../src/main/log'
import { createPushBus } from '../../../src/main/push'
import { defaultNotificationPatterns } from '../../../src/shared/events'
import type { EventSummary } from '../../../src/shared/contract/events'
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

describe('notification choice for event types', () => {
  it('notifies the default types (*.failed, screening flagged, verification rejected) and nothing else', () => {
    const events = [
      event('funding.completed', 1),
      event('payout.failed', 2),
      event('compliance.screening.flagged', 3),
      event('card.authorization.request', 4),
    ]
    const shown = eventNotifications(events, defaultNotificationPatterns)
    expect(shown.map((n) => n.title)).toEqual(['payout.failed', 'compliance.screening.flagged'])
    // An event is normal urgency: Linux would keep a critical one on screen until dismissed.
    expect(shown[0]).toMatchObject({ body: 'fund_2 · evt_2', urgency: 'normal', route: 'events' })
  })

  it('follows the configured patterns, and none when the list is empty', () => {
    expect(eventNotifications([event('card.created')], ['card.*'])).toHaveLength(1)
    expect(eventNotifications([event('payout.failed')], [])).toEqual([])
  })

  it('sums up a burst in one notification instead of one per event', () => {
    const burst = Array.from({ length: 40 }, (_, i) => event(i % 2 ? 'payout.failed' : 'funding.failed', i))
    const shown = eventNotifications(burst, defaultNotificationPatterns)
    expect(shown).toHaveLength(1)
    expect(shown[0]!.title).toBe('40 alerting events')
    expect(shown[0]!.body).toBe('funding.failed, payout.failed')
    expect(shown[0]!.urgency).toBe('normal')
  })
})

describe('notification choice for chain status changes', () => {
  it('notifies a chain turning down, stalled or wrong network, once per change', () => {
    const watch = createChainWatch()
    expect(watch.update([chain(1, 'Ethereum', 'checking'), chain(56, 'BNB Smart Chain', 'healthy')])).toEqual(
      [],
    )
    const turned = watch.update([
      chain(1, 'Ethereum', 'down', { reason: 'no answer for 30 s' }),
      chain(56, 'BNB Smart Chain', 'stalled'),
    ])
    expect(turned.map((n) => `${n.title}: ${n.body}`)).toEqual([
      'Ethereum: down: no answer for 30 s',
      'BNB Smart Chain: stalled: The head has stopped advancing.',
    ])
    // A chain alarm lasts until someone acts: the only critical (stays on screen) notification.
    expect(turned.map((n) => n.urgency)).toEqual(['critical', 'critical'])
    expect(watch.update([chain(1, 'Ethereum', 'down'), chain(56, 'BNB Smart Chain', 'stalled')])).toEqual([])
    expect(watch.update([chain(1, 'Ethereum', 'wrong_network')]).map((n) => n.title)).toEqual([
      'Ethereum: wrong network',
    ])
  })

  it('stays quiet for lagging and checking, and says when an alarmed chain is healthy again', () => {
    const watch = createChainWatch()
    expect(watch.update([chain(1, 'Ethereum', 'lagging')])).toEqual([])
    expect(watch.update([chain(1, 'Ethereum', 'healthy')])).toEqual([])
    watch.update([chain(1, 'Ethereum', 'down')])
    expect(watch.update([chain(1, 'Ethereum', 'healthy')])).toEqual([
      { title: 'Ethereum: healthy again', body: 'was down', urgency: 'normal', route: 'chains' },
    ])
  })

  it('notifies a chain already down at the first poll', () => {
    expect(createChainWatch().update([chain(1, 'Ethereum', 'down')])).toHaveLength(1)
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
  function setUp(focused = false) {
    const push = createPushBus()
    const trays: TrayState[] = []
    const notes: DesktopNotification[] = []
    let patterns = defaultNotificationPatterns
    const attention = createAttention({
      patterns: () => patterns,
      windowFocused: () => focused,
      showTray: (s) => trays.push(s),
      notify: (n) => notes.push(n),
      log: silentLogger,
    })
    push.subscribe((m) => attention.handle(m))
    return { push, trays, notes, attention, setPatterns: (p: string[]) => (patterns = p) }
  }

  it('drives the tray from chains.status and events.appended pushes, and clears the count when seen', () => {
    const { push, trays, notes, attention } = setUp()
    push.publish('chains.status', {
      at: '2026-01-01T00:00:00Z',
      chains: [chain(1, 'Ethereum', 'healthy'), chain(56, 'BNB Smart Chain', 'lagging')],
    })
    expect(trays.at(-1)).toMatchObject({ level: 'warn', worst: 'lagging', unseenAlerts: 0 })
    push.publish('events.appended', { events: [event('payout.failed')], omitted: 0 })
    expect(trays.at(-1)).toMatchObject({ unseenAlerts: 1 })
    expect(notes.map((n) => n.title)).toEqual(['payout.failed'])
    push.publish('chains.status', {
      at: '2026-01-01T00:00:05Z',
      chains: [chain(56, 'BNB Smart Chain', 'down')],
    })
    expect(trays.at(-1)).toMatchObject({ level: 'bad', worst: 'down', unseenAlerts: 1 })
    expect(notes.at(-1)!.title).toBe('BNB Smart Chain: down')
    attention.markSeen()
    expect(trays.at(-1)).toMatchObject({ level: 'bad', unseenAlerts: 0 })
  })

  it('reads notifications.eventTypes at each batch, so a saved change applies at once', () => {
    const { push, notes, setPatterns } = setUp(true)
    push.publish('events.appended', { events: [event('card.created')], omitted: 0 })
    setPatterns(['card.*'])
    push.publish('events.appended', { events: [event('card.created')], omitted: 0 })
    expect(notes.map((n) => n.title)).toEqual(['card.created'])
  })

  it('ignores a payload of another shape instead of throwing', () => {
    const { attention, trays } = setUp()
    const before = trays.length
    attention.handle({ topic: 'chains.status', payload: { chains: [{ serviceId: 'x' }] } })
    attention.handle({ topic: 'events.appended', payload: 42 })
    expect(trays.length).toBe(before)
  })
})

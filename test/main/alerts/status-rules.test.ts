import { describe, expect, it } from 'vitest'
import { statusConditions } from '../../../src/main/alerts/status-rules'
import type { StatusSnapshot } from '../../../src/main/alerts/status-rules'
import { Config } from '../../../src/shared/config'
import type { StorageStatus } from '../../../src/shared/contract/storage'

const startedAt = Date.parse('2026-11-25T10:00:00Z')
const minute = 60_000
const okStorage: StorageStatus = {
  state: 'ok',
  file: '/data/watchdesk.db',
  cause: null,
  fix: null,
  code: null,
  since: startedAt,
  lastOkAt: startedAt,
  failures: 0,
}

const alertsConfig = (alerts: Record<string, unknown>) => Config.parse({ alerts }).alerts
const snapshot = (over: Partial<StatusSnapshot>): StatusSnapshot => ({
  now: startedAt,
  listener: null,
  rejectionsInMinute: 0,
  storage: okStorage,
  lastEventAt: () => undefined,
  startedAt,
  ...over,
})
const byRule = (conditions: ReturnType<typeof statusConditions>, rule: string) =>
  conditions.filter((c) => c.rule === rule)

/** The status rules as a pure function of one snapshot: what the periodic check observes. */
describe('status rules', () => {
  it('a quiet endpoint with no event since the start is active after its minutes and says the start is no arrival', () => {
    const cfg = alertsConfig({ quietMinutes: { payments: 10 } })
    const before = byRule(statusConditions(snapshot({ now: startedAt + 10 * minute }), cfg), 'listener.quiet')
    expect(before).toMatchObject([{ subject: 'endpoint:payments', active: false }])
    const after = byRule(statusConditions(snapshot({ now: startedAt + 11 * minute }), cfg), 'listener.quiet')
    expect(after).toMatchObject([{ active: true, title: 'No events on payments for 10 min' }])
    expect(after[0]!.body).toContain('No event since watchdesk started at 2026-11-25T10:00:00.000Z')
  })

  it('a quiet endpoint counts from its last event, and names when it arrived', () => {
    const cfg = alertsConfig({ quietMinutes: { '*': 5 } })
    const last = startedAt + 20 * minute
    const [quiet] = byRule(
      statusConditions(
        snapshot({ now: last + 6 * minute, lastEventAt: (e) => (e === '*' ? last : undefined) }),
        cfg,
      ),
      'listener.quiet',
    )
    expect(quiet).toMatchObject({ name: 'Events', active: true, title: 'No events for 5 min' })
    expect(quiet!.body).toContain('The last event arrived 2026-11-25T10:20:00.000Z')
  })

  it('signature rejections are active only above the limit; no listener, no listener rule; a storage fault carries cause and fix', () => {
    const cfg = alertsConfig({ rejectionsPerMinute: 5 })
    const at = (n: number) =>
      byRule(statusConditions(snapshot({ rejectionsInMinute: n }), cfg), 'listener.rejections')[0]!
    expect(at(5).active).toBe(false)
    expect(at(6)).toMatchObject({ active: true, title: '6 signature rejections in a minute' })
    const faulted = statusConditions(
      snapshot({
        storage: { ...okStorage, state: 'failing', cause: 'The disk is full.', fix: 'Free space.' },
      }),
      cfg,
    )
    expect(byRule(faulted, 'listener.down')).toEqual([])
    expect(byRule(faulted, 'storage.fault')).toMatchObject([
      { active: true, title: 'Storage failing', body: 'The disk is full. Free space.' },
    ])
  })
})

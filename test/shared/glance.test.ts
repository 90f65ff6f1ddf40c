import { describe, expect, it } from 'vitest'
import { glance, lagTone } from '../../src/shared/glance'
import type { GlanceChain } from '../../src/shared/glance'

const chain = (name: string, status: GlanceChain['status'], enabled = true): GlanceChain => ({
  name,
  status,
  enabled,
})

describe('the one-line glance', () => {
  it('reads "2 incidents · 12 chains, 1 lagging · 38 events/min"', () => {
    const chains = [
      ...Array.from({ length: 11 }, (_, i) => chain(`c${i}`, 'healthy')),
      chain('Polygon', 'lagging'),
    ]
    const g = glance({ chains, openIncidents: 2, eventsPerMinute: 38 })
    expect(g.line).toBe('2 incidents · 12 chains, 1 lagging · 38 events/min')
    expect(g.tone).toBe('bad')
    expect(g.unhealthy).toEqual([{ status: 'lagging', count: 1, names: ['Polygon'] }])
  })

  it('is good only when nothing needs a look, and lists statuses worst first', () => {
    const calm = glance({ chains: [chain('a', 'healthy')], openIncidents: 0, eventsPerMinute: 0 })
    expect(calm).toMatchObject({ tone: 'good', line: 'no incidents · 1 chain healthy · 0 events/min' })
    const mixed = glance({
      chains: [chain('a', 'lagging'), chain('b', 'down'), chain('c', 'healthy'), chain('d', 'down', false)],
      openIncidents: 0,
      eventsPerMinute: null,
    })
    expect(mixed.line).toBe('no incidents · 3 chains, 1 down, 1 lagging')
    expect(mixed.tone).toBe('bad')
  })

  it('names a listener that is not running and a public URL that reaches nothing', () => {
    const g = glance({
      chains: [chain('a', 'healthy')],
      openIncidents: 0,
      eventsPerMinute: 0,
      listenerDown: true,
      publicUrlUnreachable: true,
    })
    expect(g.line).toBe(
      'no incidents · 1 chain healthy · listener not running · public URL unreachable · 0 events/min',
    )
    expect(g.tone).toBe('bad')
  })

  it('is not "good" (all well) while the listener has no webhook secret or the storage takes no commits', () => {
    const well = { chains: [chain('a', 'healthy')], openIncidents: 0, eventsPerMinute: 0 }
    expect(glance(well).tone).toBe('good')
    const noSecret = glance({ ...well, listenerWithoutSecrets: true })
    expect(noSecret.tone).toBe('bad')
    expect(noSecret.line).toBe(
      'no incidents · 1 chain healthy · listener has no webhook secret · 0 events/min',
    )
    const full = glance({ ...well, storageProblem: 'full' })
    expect([full.tone, full.line]).toEqual([
      'bad',
      'no incidents · 1 chain healthy · storage full · 0 events/min',
    ])
  })

  it('names suspected replays of the last 24 h and needs a look, none when there are none', () => {
    const base = { chains: [chain('a', 'healthy')], openIncidents: 0, eventsPerMinute: 3 }
    expect(glance({ ...base, suspectedReplays: 2 })).toMatchObject({
      tone: 'bad',
      line: 'no incidents · 1 chain healthy · 2 suspected replays in 24 h · 3 events/min',
    })
    expect(glance({ ...base, suspectedReplays: 0 })).toMatchObject({
      tone: 'good',
      line: 'no incidents · 1 chain healthy · 3 events/min',
    })
  })

  it('counts events of every origin per minute, the relayed ones labelled', () => {
    const base = { chains: [chain('a', 'healthy')], openIncidents: 0 }
    expect(glance({ ...base, eventsPerMinute: 38, relayedPerMinute: 26 }).line).toMatch(
      / · 38 events\/min \(26 relayed\)$/,
    )
    expect(glance({ ...base, eventsPerMinute: 201, relayedPerMinute: 201 }).line).toMatch(
      / · 201 events\/min \(all relayed\)$/,
    )
  })

  it('says a halted chain is halted, not lagging', () => {
    const g = glance({ chains: [chain('Polygon', 'halted')], openIncidents: 1, eventsPerMinute: null })
    expect(g.line).toBe('1 incident · 1 chain, 1 halted')
    expect(g.unhealthy).toEqual([{ status: 'halted', count: 1, names: ['Polygon'] }])
  })

  it('says what it does not know instead of a figure', () => {
    expect(glance({ chains: null, openIncidents: null, eventsPerMinute: null })).toMatchObject({
      line: 'chains: waiting for the first poll',
      tone: 'muted',
    })
  })

  it('colours head lag by the chain thresholds', () => {
    const t = { laggingAfterSeconds: 10, stalledAfterSeconds: 60 }
    expect([lagTone(null, t), lagTone(2, t), lagTone(10, t), lagTone(61, t)]).toEqual([
      'muted',
      'good',
      'warn',
      'bad',
    ])
  })
})

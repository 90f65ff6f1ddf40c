import { describe, expect, it } from 'vitest'
import { trayBitmap, trayLook, trayState } from '../../../src/main/desktop/tray-status'
import { chain } from './chains-fixture'

describe('tray state from chain statuses', () => {
  it('is green with "all N healthy" when every configured chain is healthy', () => {
    const state = trayState(
      [
        chain(1, 'Ethereum', 'healthy'),
        chain(56, 'BNB Smart Chain', 'healthy'),
        chain(250, 'Fantom', 'not_configured'),
      ],
      0,
    )
    expect(state.level).toBe('good')
    expect(state.worst).toBe('healthy')
    expect(state.tooltip).toBe('watchdesk\n2 chains, all healthy')
  })

  it('takes the worst status: wrong network beats down beats stalled beats lagging', () => {
    const chains = [
      chain(1, 'Ethereum', 'lagging'),
      chain(56, 'BNB Smart Chain', 'stalled'),
      chain(137, 'Polygon', 'healthy'),
    ]
    expect(trayState(chains, 0)).toMatchObject({ level: 'bad', worst: 'stalled' })
    expect(trayState([...chains, chain(10, 'OP Mainnet', 'down')], 0).worst).toBe('down')
    expect(
      trayState(
        [...chains, chain(10, 'OP Mainnet', 'down'), chain(61, 'Ethereum Classic', 'wrong_network')],
        0,
      ).worst,
    ).toBe('wrong_network')
    expect(trayState([chain(1, 'Ethereum', 'lagging'), chain(137, 'Polygon', 'healthy')], 0).level).toBe(
      'warn',
    )
  })

  it('names the failing chains and counts each status in the tooltip', () => {
    const state = trayState(
      [
        chain(1, 'Ethereum', 'down'),
        chain(56, 'BNB Smart Chain', 'lagging'),
        chain(137, 'Polygon', 'down'),
        chain(10, 'OP Mainnet', 'healthy'),
      ],
      0,
    )
    expect(state.tooltip).toBe('watchdesk\n4 chains, 2 down, 1 lagging\nnot working: Ethereum, Polygon')
  })

  it('ignores chains that are not configured or disabled, and says when none is configured', () => {
    expect(
      trayState(
        [chain(1, 'Ethereum', 'down', { enabled: false }), chain(56, 'BNB Smart Chain', 'healthy')],
        0,
      ).level,
    ).toBe('good')
    const none = trayState([chain(1, 'Ethereum', 'not_configured')], 0)
    expect(none).toMatchObject({ level: 'idle', worst: null })
    expect(none.tooltip).toContain('no chains configured')
    expect(trayState([], 0).tooltip).toContain('waiting for the first poll')
  })

  it('counts unseen alerting events and turns a calm tray amber while any is unseen', () => {
    const healthy = [chain(1, 'Ethereum', 'healthy')]
    expect(trayState(healthy, 1)).toMatchObject({ level: 'warn', unseenAlerts: 1 })
    expect(trayState(healthy, 1).tooltip).toMatch(/\n1 unseen alerting event$/)
    expect(trayState(healthy, 3).tooltip).toMatch(/\n3 unseen alerting events$/)
    expect(trayState([chain(1, 'Ethereum', 'down')], 5).level).toBe('bad')
  })
})

describe('tray summary shared with the Overview', () => {
  it('carries incidents, chains and events per minute in the tooltip and the menu line', () => {
    const chains = [chain(1, 'Ethereum', 'healthy'), chain(137, 'Polygon', 'lagging')]
    const state = trayState(chains, 0, { openIncidents: 2, eventsPerMinute: 38 })
    expect(state.summary).toBe('2 incidents · 2 chains, 1 lagging · 38 events/min')
    expect(state.tooltip).toBe('watchdesk\n2 incidents · 2 chains, 1 lagging · 38 events/min')
    expect(trayLook(state).menu.split('\n')[0]).toBe(state.summary)
  })

  it('turns a green tray red for an open incident and names failing targets and sources', () => {
    const healthy = [chain(1, 'Ethereum', 'healthy')]
    expect(trayState(healthy, 0, { openIncidents: 0, eventsPerMinute: 0 }).level).toBe('good')
    const state = trayState(healthy, 0, {
      openIncidents: 1,
      eventsPerMinute: 0,
      failingTargets: 1,
      troubledSources: 2,
    })
    expect(state.level).toBe('bad')
    expect(state.summary).toBe(
      '1 incident · 1 chain healthy · 1 forward target failing · 2 relay sources not syncing · 0 events/min',
    )
  })
})

describe('tray icon bitmap', () => {
  const pixel = (buffer: Buffer, size: number, x: number, y: number) => [
    ...buffer.subarray((y * size + x) * 4, (y * size + x) * 4 + 4),
  ]

  it('draws a dot in the level colour (BGRA), transparent in the corners', () => {
    const size = 16
    const bad = trayBitmap('bad', size)
    expect(bad.length).toBe(size * size * 4)
    expect(pixel(bad, size, 8, 8)).toEqual([0x49, 0x51, 0xf8, 255])
    expect(pixel(trayBitmap('good', size), size, 8, 8)).toEqual([0x50, 0xb9, 0x3f, 255])
    expect(pixel(bad, size, 0, 0)[3]).toBe(0)
  })
})

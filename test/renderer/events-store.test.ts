import { beforeEach, describe, expect, it, vi } from 'vitest'
import { provideBackend } from '../../src/renderer/src/api'
import {
  countLine,
  matchesFilter,
  maxLiveRows,
  mergeNewest,
  overflowReloadMs,
  useEventsStore,
} from '../../src/renderer/src/stores/events'
import type { EventFilter, EventSummary } from '../../src/shared/contract/events'
import { connectedClient, summary } from './helpers'

const initial = useEventsStore.getInitialState()

/** A back end that lists `stored` newest first and counts it; `gate` holds the list answer back. */
function backendWith(stored: EventSummary[], gate?: Promise<void>) {
  const setup = connectedClient(async (name) => {
    if (name === 'events.list') {
      await gate
      return { rows: [...stored].sort((a, b) => b.receivedAt - a.receivedAt), next: null }
    }
    if (name === 'events.count') return countOf(stored)
    if (name === 'events.listener') return { listening: true }
    return {}
  })
  provideBackend(setup.client)
  return setup
}

const ids = (rows: EventSummary[]) => rows.map((r) => r.id)

/** What the back end's events.count answers for `stored` (no filter). */
const countOf = (stored: EventSummary[]) => ({
  count: stored.length,
  capped: false,
  total: stored.length,
  throughSeq: Math.max(0, ...stored.map((e) => e.seq)),
})

beforeEach(() => {
  useEventsStore.setState(initial, true)
})

describe('the renderer’s event filter', () => {
  const event = summary({
    id: 'evt_01HZABC',
    type: 'card.created',
    group: 'cards',
    dataId: 'card_7Q2M',
    receivedAt: 1_000,
  })
  const cases: [string, EventFilter, boolean][] = [
    ['no filter', {}, true],
    ['its group', { groups: ['cards'] }, true],
    ['another group', { groups: ['payments'] }, false],
    ['its type', { types: ['card.created', 'x'] }, true],
    ['another type', { types: ['card.frozen'] }, false],
    ['from before it', { from: 1_000 }, true],
    ['from after it', { from: 1_001 }, false],
    ['to after it', { to: 1_000 }, true],
    ['to before it', { to: 999 }, false],
    ['an event id prefix', { search: 'evt_01H' }, true],
    ['a data id prefix, padded', { search: '  card_7Q ' }, true],
    ['a prefix of neither', { search: 'evt_02' }, false],
    ['a part that is not a prefix', { search: '01HZ' }, false],
  ]
  for (const [name, filter, expected] of cases) {
    it(`${expected ? 'keeps' : 'drops'} a live event for ${name}`, () => {
      expect(matchesFilter(event, filter)).toBe(expected)
    })
  }
})

describe('events store', () => {
  it('puts live events on top, newest first, updates a redelivery in place, and counts only new ones', async () => {
    const a = summary({ id: 'evt_a' })
    const b = summary({ id: 'evt_b' })
    backendWith([a, b])
    await useEventsStore.getState().reload()
    expect(ids(useEventsStore.getState().rows)).toEqual(['evt_b', 'evt_a'])

    const c = summary({ id: 'evt_c' })
    const d = summary({ id: 'evt_d' })
    const again = { ...a, deliveries: 2, lastDeliveryAt: d.receivedAt }
    useEventsStore.getState().applyAppended({ events: [c, again, d], omitted: 0 })
    const s = useEventsStore.getState()
    expect(ids(s.rows)).toEqual(['evt_d', 'evt_c', 'evt_b', 'evt_a'])
    expect(s.rows.find((r) => r.id === 'evt_a')?.deliveries).toBe(2)
    expect(s.count).toEqual({ count: 4, capped: false, total: 4, throughSeq: d.seq })
    expect(countLine(s.count, false)).toBe('4 stored')
  })

  it('holds new events back while the operator is scrolled down, and shows them on return to the top', async () => {
    backendWith([summary({ id: 'evt_a' })])
    await useEventsStore.getState().reload()
    useEventsStore.getState().setFollowing(false)
    const b = summary({ id: 'evt_b' })
    useEventsStore.getState().applyAppended({ events: [b], omitted: 0 })
    useEventsStore.getState().applyAppended({ events: [{ ...b, deliveries: 2 }], omitted: 0 })
    let s = useEventsStore.getState()
    expect(ids(s.rows)).toEqual(['evt_a'])
    expect(ids(s.held)).toEqual(['evt_b'])
    expect(s.held[0]!.deliveries).toBe(2)
    expect(s.count?.count).toBe(2) // the redelivery of a held event is not counted twice
    useEventsStore.getState().setFollowing(true)
    s = useEventsStore.getState()
    expect(ids(s.rows)).toEqual(['evt_b', 'evt_a'])
    expect(s.held).toEqual([])
  })

  it(`holds the newest ${maxLiveRows} while the operator is scrolled down through a long burst, and reads from the top to show them`, async () => {
    const { script } = backendWith([summary({ id: 'evt_old' })])
    await useEventsStore.getState().reload()
    useEventsStore.getState().setFollowing(false)
    for (let push = 0; push < 12; push++) {
      const events = Array.from({ length: 500 }, (_, i) => summary({ id: `evt_${push}_${i}` }))
      useEventsStore.getState().applyAppended({ events, omitted: 0 })
    }
    const s = useEventsStore.getState()
    expect(s.held).toHaveLength(maxLiveRows)
    expect(s.heldOverflow).toBe(true)
    expect(s.held[0]!.id).toBe('evt_11_499')
    expect(s.count?.count).toBe(1 + 12 * 500)
    // Merging the held ones would leave a gap below them: the page is read from the top instead.
    const lists = () => script.calls.filter((c) => c.name === 'events.list').length
    useEventsStore.getState().setFollowing(true)
    await vi.waitFor(() => expect(lists()).toBe(2), { timeout: 15_000 })
    await vi.waitFor(() => expect(useEventsStore.getState().loading).toBe(false), { timeout: 15_000 })
    expect(useEventsStore.getState().held).toEqual([])
    expect(useEventsStore.getState().heldOverflow).toBe(false)
  })

  it('leaves out live events the filter excludes', async () => {
    backendWith([])
    useEventsStore.setState({ filter: { groups: ['cards'] } })
    await useEventsStore.getState().reload()
    useEventsStore.getState().applyAppended({
      events: [
        summary({ id: 'evt_card', type: 'card.created', group: 'cards' }),
        summary({ id: 'evt_fund' }),
      ],
      omitted: 0,
    })
    expect(ids(useEventsStore.getState().rows)).toEqual(['evt_card'])
    expect(countLine(useEventsStore.getState().count, true)).toBe('1 of 2 stored')
  })

  it('reads the page and count again at most once a second while pushes overflow, putting the pushed events on top meanwhile', async () => {
    vi.useFakeTimers()
    try {
      const { script } = backendWith([summary({ id: 'evt_old' })])
      const lists = () => script.calls.filter((c) => c.name === 'events.list').length
      await useEventsStore.getState().reload()
      expect(lists()).toBe(1)
      const overflowing = (id: string) =>
        useEventsStore.getState().applyAppended({ events: [summary({ id })], omitted: 600 })
      // The first overflow reads again at once (the 600 left out of the push are on the server).
      overflowing('evt_1')
      await vi.waitFor(() => expect(lists()).toBe(2), { timeout: 15_000 })
      await vi.waitFor(() => expect(useEventsStore.getState().loading).toBe(false), { timeout: 15_000 })
      // Within the second after it, pushes are applied as they come, no further read...
      vi.advanceTimersByTime(150)
      overflowing('evt_2')
      vi.advanceTimersByTime(150)
      overflowing('evt_3')
      expect(lists()).toBe(2)
      expect(ids(useEventsStore.getState().rows).slice(0, 2)).toEqual(['evt_3', 'evt_2'])
      // ...and one read once the second has passed.
      vi.advanceTimersByTime(overflowReloadMs)
      await vi.waitFor(() => expect(lists()).toBe(3), { timeout: 15_000 })
      vi.advanceTimersByTime(overflowReloadMs * 3)
      expect(lists()).toBe(3)
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps an event pushed while a reload is in flight', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    backendWith([summary({ id: 'evt_old' })], gate)
    const reloading = useEventsStore.getState().reload()
    useEventsStore.getState().applyAppended({ events: [summary({ id: 'evt_during' })], omitted: 0 })
    release()
    await reloading
    expect(ids(useEventsStore.getState().rows)).toEqual(['evt_during', 'evt_old'])
  })

  it('counts an event once when the page was read before it was stored and the count after', async () => {
    // The page and the count are two reads: the event is in the count's snapshot, not the page's,
    // so its push arrives after the reload with the count already holding it.
    const old = summary({ id: 'evt_old' })
    const late = summary({ id: 'evt_late' })
    const setup = connectedClient(async (name) => {
      if (name === 'events.list') return { rows: [old], next: null }
      if (name === 'events.count') return countOf([old, late])
      return {}
    })
    provideBackend(setup.client)
    await useEventsStore.getState().reload()
    useEventsStore.getState().applyAppended({ events: [late], omitted: 0 })
    const s = useEventsStore.getState()
    expect(ids(s.rows)).toEqual(['evt_late', 'evt_old'])
    expect(countLine(s.count, false)).toBe('2 stored')
  })

  it('counts an event pushed while a reload is in flight that the count had not read yet', async () => {
    const old = summary({ id: 'evt_old' })
    let gate = Promise.resolve()
    const setup = connectedClient(async (name) => {
      if (name === 'events.list') return await gate.then(() => ({ rows: [old], next: null }))
      if (name === 'events.count') return countOf([old])
      return {}
    })
    provideBackend(setup.client)
    await useEventsStore.getState().reload()
    let release!: () => void
    gate = new Promise<void>((r) => (release = r))
    const reloading = useEventsStore.getState().reload()
    // Stored after the count's read (which answered at once), pushed before the page's answer.
    const during = summary({ id: 'evt_during', type: 'card.created', group: 'cards' })
    useEventsStore.getState().applyAppended({ events: [during], omitted: 0 })
    release()
    await reloading
    expect(countLine(useEventsStore.getState().count, false)).toBe('2 stored')
    // Its redelivery, pushed later, is the same event.
    useEventsStore.getState().applyAppended({ events: [{ ...during, deliveries: 2 }], omitted: 0 })
    expect(countLine(useEventsStore.getState().count, false)).toBe('2 stored')
  })

  it('moves the total for a pushed event the filter leaves out', async () => {
    backendWith([summary({ id: 'evt_card', type: 'card.created', group: 'cards' })])
    useEventsStore.setState({ filter: { groups: ['cards'] } })
    await useEventsStore.getState().reload()
    useEventsStore.getState().applyAppended({ events: [summary({ id: 'evt_fund' })], omitted: 0 })
    expect(countLine(useEventsStore.getState().count, true)).toBe('1 of 2 stored')
  })

  it(`keeps at most ${maxLiveRows} rows while following and pages from the last one kept`, async () => {
    backendWith([])
    await useEventsStore.getState().reload()
    const burst = Array.from({ length: maxLiveRows + 10 }, (_, i) => summary({ id: `evt_${i}` }))
    useEventsStore.getState().applyAppended({ events: burst, omitted: 0 })
    const s = useEventsStore.getState()
    expect(s.rows).toHaveLength(maxLiveRows)
    expect(s.rows[0]!.id).toBe(`evt_${maxLiveRows + 9}`)
    const last = s.rows.at(-1)!
    expect(s.next).toEqual({ receivedAt: last.receivedAt, seq: last.seq })
  })

  it('on resync while following, shows what was stored while the back end was away', async () => {
    const stored = [summary({ id: 'evt_before' })]
    const { script } = backendWith(stored)
    const attached = useEventsStore.getState().attach()
    await useEventsStore.getState().reload()
    stored.push(summary({ id: 'evt_missed' }))
    useEventsStore.getState().resync()
    await expect.poll(() => ids(useEventsStore.getState().rows)).toEqual(['evt_missed', 'evt_before'])
    expect(script.calls.filter((c) => c.name === 'events.listener')).toHaveLength(1)
    attached.dispose()
  })

  it('on resync while scrolled down, holds what was missed behind "new" and keeps the rows', async () => {
    const stored = [summary({ id: 'evt_before' })]
    backendWith(stored)
    const attached = useEventsStore.getState().attach()
    await useEventsStore.getState().reload()
    useEventsStore.getState().setFollowing(false)
    stored.push(summary({ id: 'evt_missed' }))
    useEventsStore.getState().resync()
    await expect.poll(() => ids(useEventsStore.getState().held)).toEqual(['evt_missed'])
    expect(ids(useEventsStore.getState().rows)).toEqual(['evt_before'])
    expect(useEventsStore.getState().count?.count).toBe(2)
    attached.dispose()
  })

  it('does not resync when no view shows events, and follows pushes only while attached', async () => {
    const { script } = backendWith([])
    useEventsStore.getState().resync()
    expect(script.calls).toEqual([])
    const attached = useEventsStore.getState().attach()
    script.push({ topic: 'events.appended', payload: { events: [summary({ id: 'evt_1' })], omitted: 0 } })
    attached.dispose()
    script.push({ topic: 'events.appended', payload: { events: [summary({ id: 'evt_2' })], omitted: 0 } })
    expect(ids(useEventsStore.getState().rows)).toEqual(['evt_1'])
  })

  it('merges newest first, each id once', () => {
    const x = summary({ id: 'x', receivedAt: 5 })
    const y = summary({ id: 'y', receivedAt: 9 })
    expect(
      ids(mergeNewest([x, y], [summary({ id: 'x', receivedAt: 5 }), summary({ id: 'z', receivedAt: 1 })])),
    ).toEqual(['y', 'x', 'z'])
  })
})

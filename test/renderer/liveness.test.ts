import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { silentAfterMs } from '../../src/shared/liveness'
import type { Link } from '../../src/renderer/src/api/client'
import { watchdogEveryMs } from '../../src/renderer/src/api/client'
import { connectedClient } from './helpers'

describe('renderer client liveness', () => {
  let reported: ReturnType<typeof vi.spyOn>
  beforeEach(() => {
    reported = vi.spyOn(console, 'error').mockImplementation(() => {})
  })
  afterEach(() => {
    reported.mockRestore()
  })

  it('is connecting until the first sign of life, then live, with no resync for the first one', () => {
    const { client, script, time } = connectedClient()
    let resyncs = 0
    client.onResync(() => resyncs++)
    expect(client.link()).toEqual({ state: 'connecting', since: time.now() })
    time.advance(1000)
    script.beat()
    expect(client.link()).toEqual({ state: 'live', since: time.now() })
    expect(resyncs).toBe(0)
  })

  it('calls the back end lost when heartbeats stop, dated from the last one, and restarts the stream', () => {
    const { client, script, time } = connectedClient()
    const links: Link[] = []
    client.onLink((l) => links.push(l))
    script.beat()
    const lastBeat = time.now()
    time.advance(silentAfterMs)
    expect(client.link().state).toBe('live') // exactly at the limit: not yet
    time.advance(watchdogEveryMs)
    const link = client.link()
    expect(link).toMatchObject({ state: 'lost', since: lastBeat })
    expect(link.state === 'lost' && link.why).toMatch(/no heartbeat for 5 s/)
    expect(script.restarts).toHaveLength(1)
    // Detected within 5 s of the last heartbeat, whatever the watchdog's phase.
    expect(time.now() - lastBeat).toBeLessThanOrEqual(5000)
    time.advance(10_000)
    expect(links.map((l) => l.state)).toEqual(['live', 'lost'])
    expect(script.restarts).toHaveLength(1)
  })

  it('is live again on the next message and asks every store to resync once', () => {
    const { client, script, time } = connectedClient()
    const resyncs: string[] = []
    client.onResync(() => resyncs.push('events'))
    client.onResync(() => {
      throw new Error('a broken store')
    })
    client.onResync(() => resyncs.push('chains'))
    script.beat()
    script.dropped('the push stream ended')
    expect(client.link()).toMatchObject({ state: 'lost', why: 'the push stream ended' })
    time.advance(3000)
    script.opened()
    expect(client.link()).toEqual({ state: 'live', since: time.now() })
    script.beat()
    expect(resyncs).toEqual(['events', 'chains'])
    expect(reported).toHaveBeenCalledTimes(1)
  })

  it('says lost when the back end never answered after opening', () => {
    const { client, time } = connectedClient()
    time.advance(silentAfterMs + watchdogEveryMs)
    const link = client.link()
    expect(link.state).toBe('lost')
    expect(link.state === 'lost' && link.why).toMatch(/no answer within 4 s of opening/)
  })

  it('delivers pushes by topic, keeps going past a listener that throws, and stops at dispose', () => {
    const { client, script } = connectedClient()
    const got: number[] = []
    const first = client.onPush('payments.changed', (p) => got.push(p.at))
    client.onPush('payments.changed', () => {
      throw new Error('view bug')
    })
    client.onPush('payments.changed', (p) => got.push(p.at * 10))
    client.onPush('events.listener', () => got.push(-1))
    script.push({ topic: 'payments.changed', payload: { at: 1 } })
    first.dispose()
    script.push({ topic: 'payments.changed', payload: { at: 2 } })
    expect(got).toEqual([1, 10, 20])
    expect(reported).toHaveBeenCalledTimes(2)
  })

  it('closes the stream and stops the watchdog when the connection is disposed', () => {
    const { script, time, connection } = connectedClient()
    expect([script.isOpen(), time.timerCount()]).toEqual([true, 1])
    connection.dispose()
    expect([script.isOpen(), time.timerCount()]).toEqual([false, 0])
  })
})

import { request } from 'node:http'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import type { RelayStore } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, fill, getJson, useRelays } from './helpers'

/** One `/sync/stream` read with node:http, so a test can stop reading (a slow follower). */
interface StreamReader {
  status: number
  headers: IncomingMessage['headers']
  body: string
  /** Event ids in the order received. */
  ids: string[]
  kinds: string[]
  ended: boolean
  pause(): void
  resume(): void
  close(): void
}

function openStream(syncUrl: string, token: string, after = '0'): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = request(`${syncUrl}/sync/stream?after=${after}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      /** The frame being received, in the pieces it came in. */
      const pending: string[] = []
      const reader: StreamReader = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        ids: [],
        kinds: [],
        ended: false,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      }
      const onFrame = (frame: string) => {
        const kind = /^event: (.*)$/m.exec(frame)?.[1]
        if (!kind) return
        reader.kinds.push(kind)
        if (kind === 'events') {
          const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as { events: { id: string }[] }
          reader.ids.push(...data.events.map((e) => e.id))
        }
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (reader.status !== 200) return void (reader.body += chunk)
        // A catch-up page is one frame of megabytes in 64 kB chunks: each chunk is searched once
        // for the end of a frame and the frame joined once (searching all that was pending at each
        // chunk cost seconds of CPU for the slow follower's pages).
        let text = chunk
        const last = pending.length - 1
        if (text.startsWith('\n') && last >= 0 && pending[last]!.endsWith('\n')) {
          pending[last] = pending[last]!.slice(0, -1)
          onFrame(pending.splice(0).join(''))
          text = text.slice(1)
        }
        const [first, ...rest] = text.split('\n\n')
        pending.push(first!)
        for (const next of rest) {
          onFrame(pending.splice(0).join(''))
          pending.push(next)
        }
      })
      const ended = () => (reader.ended = true)
      res.on('end', ended)
      res.on('close', ended)
      res.on('error', ended)
      resolve(reader)
    })
    req.end()
  })
}

/** The store with its reads counted. */
function counted(store: RelayStore): { store: RelayStore; reads: () => number } {
  let reads = 0
  return {
    store: {
      ...store,
      readAfter: (...args) => {
        reads++
        return store.readAfter(...args)
      },
    },
    reads: () => reads,
  }
}

describe('the sync API fanning one change feed out to its streams', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-fanout-')

  it('reads the store once per commit however many streams follow (50 live streams, 20 commits)', async () => {
    const { store, reads } = counted(relays.sqliteStore(join(tempDir(), 'relay.db')))
    // No timed re-reads during the test: every read below comes from a commit notice.
    const relay = await relays.relay(store, { pollMs: 600_000, maxStreams: { perToken: 50, perRelay: 50 } })
    const token = unwrap(await createRelayToken(store, 'team'))
    const streams = await Promise.all(Array.from({ length: 50 }, () => openStream(relay.syncUrl, token)))
    expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200))
    await waitFor(() => relay.streams().live === 50 || undefined, 'all 50 streams live')
    const before = reads()
    const ids = Array.from({ length: 20 }, (_, i) => `evt_fan_${i}`)
    for (const id of ids) expect(await deliver(`${relay.listenerUrl}/webhooks`, id)).toBe(200)
    await waitFor(() => streams.every((s) => s.ids.length === 20) || undefined, 'every stream to get all 20')
    expect(streams.map((s) => s.ids)).toEqual(streams.map(() => ids))
    // One read per commit (a notice arriving during a read adds at most one more), not one per
    // stream per commit (1,000 reads before the change feed).
    expect(reads() - before).toBeLessThanOrEqual(ids.length + 1)
    expect(reads() - before).toBeGreaterThan(0)
    streams.forEach((s) => s.close())
  })

  it('cuts a follower that stops reading back to catch-up, keeps what waits for it bounded, and gives it every event once and in order when it reads again', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const maxBufferedBytes = 64 * 1024
    const relay = await relays.relay(store, { maxBufferedBytes, pollMs: 600_000 })
    const token = unwrap(await createRelayToken(store, 'team'))
    const [slow, quick] = await Promise.all([
      openStream(relay.syncUrl, token),
      openStream(relay.syncUrl, token),
    ])
    await waitFor(() => relay.streams().live === 2 || undefined, 'both streams live')
    slow.pause()
    // ~7 kB per event: 1,500 events are ~10 MB, several times what the sockets' buffers hold for a
    // reader that never read (its receive window never grew).
    const pad = 'x'.repeat(3_000)
    const total = 1_500
    for (let i = 0; i < total; i += 100)
      await fill(store, `evt_slow_${String(i).padStart(5, '0')}`, 100, { pad })
    await waitFor(() => quick.ids.length === total || undefined, 'the quick stream to get every event', {
      timeoutMs: 30_000,
    })
    const stats = relay.streams()
    expect(stats.cut).toBeGreaterThanOrEqual(1)
    // Bounded: the cap, plus at most one catch-up page (1,000 events) written before a drain.
    expect(stats.buffered).toBeLessThan(maxBufferedBytes + 1_000 * 8_000)
    expect(slow.ids.length).toBeLessThan(total)
    slow.resume()
    await waitFor(() => slow.ids.length >= total || undefined, 'the slow stream to catch up', {
      timeoutMs: 30_000,
    })
    const expected = unwrap(await store.readAfter('0', 5_000)).events.map((e) => e.id)
    expect(slow.ids).toEqual(expected)
    expect(quick.ids).toEqual(expected)
    await waitFor(() => relay.streams().live === 2 || undefined, 'the slow stream live again')
    slow.close()
    quick.close()
  }, 90_000)

  it('refuses a stream beyond sync.maxStreams per token and per relay with 429 and Retry-After', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store, { maxStreams: { perToken: 2, perRelay: 3 } })
    const [a, b] = [
      unwrap(await createRelayToken(store, 'alice')),
      unwrap(await createRelayToken(store, 'bob')),
    ]
    const open = [await openStream(relay.syncUrl, a), await openStream(relay.syncUrl, a)]
    const third = await openStream(relay.syncUrl, a)
    expect(third.status).toBe(429)
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0)
    await waitFor(() => third.ended || undefined, 'the refusal to end')
    expect(JSON.parse(third.body).error).toMatch(
      /"alice" already has 2 open streams \(sync\.maxStreams\.perToken\)/,
    )
    open.push(await openStream(relay.syncUrl, b))
    expect(open.map((s) => s.status)).toEqual([200, 200, 200])
    const fourth = await openStream(relay.syncUrl, b)
    expect(fourth.status).toBe(429)
    await waitFor(() => fourth.ended || undefined, 'the refusal to end')
    expect(JSON.parse(fourth.body).error).toMatch(/already serves 3 streams \(sync\.maxStreams\.perRelay\)/)
    // A closed stream frees its place.
    open[0]!.close()
    await waitFor(
      () => relay.streams().live + relay.streams().catchingUp === 2 || undefined,
      'one stream gone',
    )
    const again = await openStream(relay.syncUrl, a)
    expect(again.status).toBe(200)
    for (const s of [...open, again]) s.close()
    // Plain requests are not streams.
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, a)).status).toBe(200)
  })

  it('ends a stream of a revoked token within the heartbeat even in the middle of a catch-up', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const heartbeatMs = 1_000
    const relay = await relays.relay(store, { heartbeatMs })
    const token = unwrap(await createRelayToken(store, 'laptop'))
    // ~17 MB in 10 pages: far more than the sockets hold once the reader pauses, in a third of the
    // rows (it was 30,000 of 0.5 kB; what costs per row proves nothing here).
    const total = 10_000
    await fill(store, 'evt_catchup', total, { pad: 'y'.repeat(1_500) })
    const stream = await openStream(relay.syncUrl, token)
    await waitFor(() => stream.ids.length > 0 || undefined, 'the first page')
    // A follower still catching up (it reads slowly): the old stream checked the token only once
    // caught up, so it kept sending them all.
    stream.pause()
    expect(relay.streams().catchingUp).toBe(1)
    expect(await store.tokens.revoke('laptop', Date.now())).toBe(true)
    const revokedAt = Date.now()
    await waitFor(
      () => relay.streams().catchingUp + relay.streams().live === 0 || undefined,
      'the relay to end the stream',
      { timeoutMs: heartbeatMs * 3 },
    )
    // Found at the next heartbeat; a client that does not read is cut off a second later at most.
    expect(Date.now() - revokedAt).toBeLessThan(heartbeatMs * 3)
    stream.resume()
    // What the sockets held is read first (megabytes on a loaded machine: more than waitFor's 8 s).
    await waitFor(() => stream.ended || undefined, 'the stream to end', { timeoutMs: 30_000 })
    expect(stream.ids.length).toBeLessThan(total)
  }, 90_000)
})

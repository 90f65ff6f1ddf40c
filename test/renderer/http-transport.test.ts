// @vitest-environment node
// Node's own fetch types (Response, ReadableStream) stand in for the browser's here.
import { describe, expect, it } from 'vitest'
import { httpTransport, reconnectDelayMs, tokenRefusedMessage } from '../../src/renderer/src/api/client'
import type { PushSink } from '../../src/renderer/src/api/client'
import type { PushMessage } from '../../src/shared/contract'
import { settles } from '../support/wait'

/** One scripted answer per connection attempt: a status, or a stream the test writes to. */
type Attempt = { status: number } | { frames: string[]; end: boolean } | { hang: true }

function scriptedFetch(attempts: Attempt[]) {
  const requests: { url: string; auth: string | null }[] = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), auth: new Headers(init?.headers).get('authorization') })
    const attempt = attempts.shift() ?? { hang: true }
    if ('status' in attempt) return new Response('{}', { status: attempt.status })
    const signal = init?.signal
    if ('hang' in attempt) {
      return new Promise<Response>((_, reject) =>
        signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      )
    }
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const f of attempt.frames) controller.enqueue(new TextEncoder().encode(f))
        if (attempt.end) controller.close()
        signal?.addEventListener('abort', () => controller.error(new Error('aborted')))
      },
    })
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
  }) as typeof globalThis.fetch
  return { fetch, requests }
}

function recordingSink() {
  const log: string[] = []
  const messages: PushMessage[] = []
  const sink: PushSink = {
    message: (m) => (messages.push(m), log.push(`message ${m.topic}`)),
    opened: () => log.push('opened'),
    dropped: (why) => log.push(`dropped ${why}`),
  }
  return { sink, log, messages }
}

const beat = (at: number) => `data: {"topic":"app.heartbeat","payload":{"at":${at}}}\n\n`

describe('HTTP push stream', () => {
  it('backs off 0.5 s doubling to 5 s while the back end is away, and starts over once it answers', async () => {
    const { fetch, requests } = scriptedFetch([
      { status: 502 },
      { status: 502 },
      { status: 502 },
      { status: 502 },
      { status: 502 },
      { status: 502 },
      { frames: [beat(1)], end: true },
      { status: 502 },
      { frames: [], end: false },
    ])
    const pauses: number[] = []
    const transport = httpTransport('tok_123456', {
      fetch,
      sleep: async (ms) => void pauses.push(ms),
    })
    const { sink, log } = recordingSink()
    const stream = transport.openPushes(sink)
    await settles(() => log.filter((l) => l === 'opened').length === 2, 'the stream opened twice')
    stream.dispose()
    expect(pauses).toEqual([500, 1000, 2000, 4000, 5000, 5000, 500, 1000])
    expect(requests.every((r) => r.url === '/api/push' && r.auth === 'Bearer tok_123456')).toBe(true)
    expect(log.slice(6, 9)).toEqual([
      'opened',
      'message app.heartbeat',
      expect.stringMatching(/^dropped .*push stream ended/),
    ])
    expect(reconnectDelayMs(0)).toBe(500)
    expect(reconnectDelayMs(30)).toBe(5000)
  })

  it('delivers each message in order and skips a frame that is not JSON', async () => {
    const { fetch } = scriptedFetch([
      {
        frames: [
          ': connected\n\n',
          beat(1),
          'data: not json\n\n',
          'data: {"topic":"payments.changed",',
          '"payload":{"at":5}}\n\n',
        ],
        end: false,
      },
    ])
    const { sink, messages } = recordingSink()
    const stream = httpTransport('t', { fetch, sleep: async () => {} }).openPushes(sink)
    await settles(() => messages.length === 2, 'two messages')
    stream.dispose()
    expect(messages).toEqual([
      { topic: 'app.heartbeat', payload: { at: 1 } },
      { topic: 'payments.changed', payload: { at: 5 } },
    ])
  })

  it('says the launch token was refused when the back end answers 401', async () => {
    const { fetch } = scriptedFetch([{ status: 401 }])
    const { sink, log } = recordingSink()
    const stream = httpTransport('old-token', { fetch, sleep: async () => {} }).openPushes(sink)
    await settles(() => log.length >= 1, 'a first log line')
    stream.dispose()
    expect(log[0]).toBe(`dropped ${tokenRefusedMessage}`)
  })

  it('drops a silent connection when told to restart, with the reason, and opens a new one', async () => {
    const { fetch, requests } = scriptedFetch([
      { frames: [beat(1)], end: false },
      { frames: [beat(2)], end: false },
    ])
    const { sink, log } = recordingSink()
    const stream = httpTransport('t', { fetch, sleep: async () => {} }).openPushes(sink)
    await settles(() => log.includes('message app.heartbeat'), 'a heartbeat')
    stream.restart('no heartbeat for 5 s')
    await settles(() => log.filter((l) => l === 'opened').length === 2, 'the stream opened twice')
    stream.dispose()
    expect(requests).toHaveLength(2)
    expect(log).toContainEqual(expect.stringMatching(/^dropped .*no heartbeat for 5 s/))
  })

  it('abandons an attempt that gets no answer and tries again', async () => {
    const { fetch, requests } = scriptedFetch([{ hang: true }, { frames: [beat(1)], end: false }])
    const { sink, log } = recordingSink()
    const stream = httpTransport('t', { fetch, sleep: async () => {}, connectTimeoutMs: 1 }).openPushes(sink)
    await settles(() => log.includes('opened'), 'the stream opened')
    stream.dispose()
    expect(requests).toHaveLength(2)
    expect(log[0]).toMatch(/no answer within 0 s/)
  })

  it('answers a call with unavailable, naming the cause, when the back end is gone', async () => {
    const fetch = (async () => {
      throw new TypeError('Failed to fetch')
    }) as typeof globalThis.fetch
    const answer = await httpTransport('t', { fetch }).call('app.health', {})
    expect(answer).toEqual({
      ok: false,
      error: {
        code: 'unavailable',
        message: "The console's back end did not answer (Failed to fetch). Is watchdesk serve still running?",
      },
    })
  })
})

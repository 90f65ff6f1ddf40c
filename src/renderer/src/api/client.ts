import type { WatchdeskBridge } from '../../../shared/contract/bridge'
import type {
  MethodName,
  PushMessage,
  PushPayload,
  PushTopic,
  RequestOf,
  ResponseOf,
} from '../../../shared/contract'
import { DisposableStore, toDisposable } from '../../../shared/disposable'
import type { Disposable } from '../../../shared/disposable'
import { silentAfterMs } from '../../../shared/liveness'
import { err } from '../../../shared/result'
import type { Result } from '../../../shared/result'
import { createSseParser } from './sse'

/** What a transport tells the client about its push stream. */
export interface PushSink {
  message(message: PushMessage): void
  /** The stream is (again) open: the back end answers. */
  opened(): void
  /** The stream ended or could not be opened: the cause in a few words; it retries by itself. */
  dropped(why: string): void
}

export interface PushStream extends Disposable {
  /** Drop the current connection and open a new one (it went silent). */
  restart(why: string): void
}

/** How the renderer reaches the back end: Electron's preload bridge, or HTTP in serve mode. */
export interface Transport {
  kind: 'ipc' | 'http'
  call(name: MethodName, request: unknown): Promise<Result<unknown>>
  openPushes(sink: PushSink): PushStream
}

export function ipcTransport(bridge: WatchdeskBridge): Transport {
  return {
    kind: 'ipc',
    call: (name, request) => (bridge.methods[name] as (r: unknown) => Promise<Result<unknown>>)(request),
    // IPC has no connection to lose: silence (a hung back end) is noticed by the client's watchdog,
    // and the first message after it brings the link back.
    openPushes: (sink) => {
      const pushes = bridge.onPush((m) => sink.message(m))
      return { ...toDisposable(() => pushes.dispose()), restart() {} }
    },
  }
}

export interface HttpTransportOptions {
  base?: string
  fetch?: typeof fetch
  /** Waits between reconnection attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /** An attempt whose answer does not start within this long is abandoned and retried. */
  connectTimeoutMs?: number
}

/** Pause before reconnection attempt n (0-based): 0.5 s doubling to at most 5 s, so a back end that
 * restarts is found again within seconds without hammering one that stays away. */
export const reconnectDelayMs = (failures: number): number => Math.min(500 * 2 ** failures, 5_000)

export const unreachableMessage = (detail: string) =>
  `The console's back end did not answer (${detail}). Is watchdesk serve still running?`

export const tokenRefusedMessage =
  'The back end refused this tab’s launch token: it was restarted with another one. Open the URL it printed (…/?token=…).'

export function httpTransport(token: string, options: HttpTransportOptions = {}): Transport {
  const base = options.base ?? ''
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const headers = { authorization: `Bearer ${token}` }
  return {
    kind: 'http',
    async call(name, request) {
      try {
        const response = await doFetch(`${base}/api/call/${name}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(request ?? {}),
        })
        if (response.status === 401) return err('unauthorized', tokenRefusedMessage)
        return (await response.json()) as Result<unknown>
      } catch (error) {
        return err('unavailable', unreachableMessage((error as Error).message))
      }
    },
    openPushes: (sink) =>
      openEventStream(`${base}/api/push`, headers, sink, {
        fetch: doFetch,
        sleep: options.sleep ?? sleep,
        connectTimeoutMs: options.connectTimeoutMs ?? silentAfterMs,
      }),
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })
}

/** Server-sent events read with fetch (EventSource cannot send the Authorization header). One
 * connection at a time; after it ends or fails, the next attempt follows `reconnectDelayMs`. */
function openEventStream(
  url: string,
  headers: Record<string, string>,
  sink: PushSink,
  deps: Required<Pick<HttpTransportOptions, 'fetch' | 'sleep' | 'connectTimeoutMs'>>,
): PushStream {
  const stopped = new AbortController()
  let attempt: AbortController | null = null
  let restartReason: string | null = null
  let failures = 0

  const once = async (): Promise<string> => {
    const current = new AbortController()
    attempt = current
    const stop = () => current.abort()
    stopped.signal.addEventListener('abort', stop, { once: true })
    const connectTimer = setTimeout(() => {
      restartReason ??= `no answer within ${Math.round(deps.connectTimeoutMs / 1000)} s`
      current.abort()
    }, deps.connectTimeoutMs)
    try {
      const response = await deps.fetch(url, { headers, signal: current.signal, cache: 'no-store' })
      clearTimeout(connectTimer)
      if (response.status === 401) return tokenRefusedMessage
      if (!response.ok || !response.body) return `the push stream answered HTTP ${response.status}`
      failures = 0
      sink.opened()
      const parser = createSseParser((data) => {
        let message: PushMessage
        try {
          message = JSON.parse(data) as PushMessage
        } catch {
          return // not JSON: a bug on the other side, and no reason to drop the stream
        }
        sink.message(message)
      })
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return 'the push stream ended'
        parser.feed(value)
      }
    } catch (error) {
      return restartReason ?? `the push stream failed (${(error as Error).message})`
    } finally {
      clearTimeout(connectTimer)
      stopped.signal.removeEventListener('abort', stop)
      restartReason = null
      attempt = null
    }
  }

  void (async () => {
    while (!stopped.signal.aborted) {
      const why = await once()
      if (stopped.signal.aborted) return
      sink.dropped(why)
      await deps.sleep(reconnectDelayMs(failures++), stopped.signal)
    }
  })()

  return {
    dispose: () => stopped.abort(),
    restart(why) {
      if (!attempt) return
      restartReason = why
      attempt.abort()
    },
  }
}

/** Is the back end there? `since` is when the state began; for `lost`, the last sign of life (the
 * figures on screen were true until then), and `why` the cause in a few words. */
export type Link =
  | { state: 'connecting'; since: number }
  | { state: 'live'; since: number }
  | { state: 'lost'; since: number; why: string }

export interface Clock {
  now(): number
  every(ms: number, tick: () => void): Disposable
}

export const realClock: Clock = {
  now: () => Date.now(),
  every(ms, tick) {
    const timer = setInterval(tick, ms)
    return toDisposable(() => clearInterval(timer))
  },
}

/** How often the watchdog looks at the time since the last sign of life. */
export const watchdogEveryMs = 500

export interface Client {
  transport: Transport['kind']
  call<K extends MethodName>(name: K, request: RequestOf<K>): Promise<Result<ResponseOf<K>>>
  onPush<T extends PushTopic>(topic: T, listener: (payload: PushPayload<T>) => void): Disposable
  link(): Link
  onLink(listener: (link: Link) => void): Disposable
  /** After the link came back from `lost`: what the back end did meanwhile (events stored, statuses
   * changed) is not in the pushes this page got, so whoever shows it loads it again. */
  onResync(listener: () => void): Disposable
  /** Opens the push stream and starts the watchdog; the page owns the result for its lifetime. */
  connect(): Disposable
}

/** The one implementation of liveness, for both transports: any message (a heartbeat every 2 s, see
 * src/shared/liveness.ts) is a sign of life; silence for `silentAfterMs` or a dropped stream is
 * `lost`; the next sign of life is `live` again and triggers a resync. */
export function createClient(transport: Transport, clock: Clock = realClock): Client {
  const listeners = new Map<PushTopic, Set<(payload: unknown) => void>>()
  const linkListeners = new Set<(link: Link) => void>()
  const resyncListeners = new Set<() => void>()
  let link: Link = { state: 'connecting', since: clock.now() }
  let lastContact: number | null = null

  const notify = <A extends unknown[]>(set: Set<(...args: A) => void>, ...args: A) => {
    for (const listener of [...set]) {
      try {
        listener(...args)
      } catch (error) {
        // One broken view must not stop the others from hearing about it.
        console.error('watchdesk: a listener threw', error)
      }
    }
  }
  const setLink = (next: Link) => {
    link = next
    notify(linkListeners, next)
  }
  const signOfLife = () => {
    const now = clock.now()
    lastContact = now
    if (link.state === 'live') return
    const wasLost = link.state === 'lost'
    setLink({ state: 'live', since: now })
    if (wasLost) notify(resyncListeners)
  }
  const lose = (why: string) => {
    if (link.state === 'lost') {
      if (link.why !== why) setLink({ ...link, why })
      return
    }
    setLink({ state: 'lost', since: lastContact ?? link.since, why })
  }
  const subscribe = <L>(set: Set<L>, listener: L): Disposable => {
    set.add(listener)
    return toDisposable(() => set.delete(listener))
  }

  return {
    transport: transport.kind,
    call: (name, request) => transport.call(name, request) as never,
    onPush(topic, listener) {
      const set = listeners.get(topic) ?? new Set()
      listeners.set(topic, set)
      return subscribe(set, listener as (payload: unknown) => void)
    },
    link: () => link,
    onLink: (listener) => subscribe(linkListeners, listener),
    onResync: (listener) => subscribe(resyncListeners, listener),
    connect() {
      const owned = new DisposableStore()
      const stream = owned.add(
        transport.openPushes({
          message(message) {
            signOfLife()
            const set = listeners.get(message.topic)
            if (set) notify(set, message.payload)
          },
          opened: signOfLife,
          dropped: lose,
        }),
      )
      owned.add(
        clock.every(watchdogEveryMs, () => {
          const now = clock.now()
          const silentMs = now - (lastContact ?? link.since)
          if (link.state === 'lost' || silentMs <= silentAfterMs) return
          const why =
            link.state === 'connecting'
              ? `no answer within ${Math.round(silentAfterMs / 1000)} s of opening`
              : `no heartbeat for ${Math.round(silentMs / 1000)} s`
          lose(why)
          stream.restart(why)
        }),
      )
      return owned
    },
  }
}

const tokenKey = 'watchdesk.token'

/** The token given by hand (a tab opened from a link, which never carries it), kept for this tab. */
export function rememberLaunchToken(storage: Storage, token: string): void {
  storage.setItem(tokenKey, token)
}

/** serve mode: the token arrives once in the URL; keep it for this tab and take it out of the address bar. */
export function takeLaunchToken(location: Location, storage: Storage, history: History): string | null {
  const params = new URLSearchParams(location.search)
  const fromUrl = params.get('token')
  if (fromUrl) {
    rememberLaunchToken(storage, fromUrl)
    params.delete('token')
    const query = params.toString()
    history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`)
    return fromUrl
  }
  return storage.getItem(tokenKey)
}

declare global {
  interface Window {
    watchdesk?: WatchdeskBridge
  }
}

/** The client this page talks through: the preload bridge in the desktop app, HTTP with the launch
 * token in a browser tab; null in a tab opened without the token. */
export function clientForPage(page: Window): Client | null {
  if (page.watchdesk) return createClient(ipcTransport(page.watchdesk))
  const token = takeLaunchToken(page.location, page.sessionStorage, page.history)
  return token ? createClient(httpTransport(token)) : null
}

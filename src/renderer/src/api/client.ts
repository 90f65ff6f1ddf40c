import type { WatchdeskBridge } from '../../../shared/contract/bridge'
import type {
  MethodName,
  PushMessage,
  PushPayload,
  PushTopic,
  RequestOf,
  ResponseOf,
} from '../../../shared/contract'
import { err } from '../../../shared/result'
import type { Result } from '../../../shared/result'

/** How the renderer reaches the back end: Electron's preload bridge, or HTTP in serve mode. */
export interface Transport {
  kind: 'ipc' | 'http'
  call(name: MethodName, request: unknown): Promise<Result<unknown>>
  onPush(listener: (message: PushMessage) => void): () => void
}

export function ipcTransport(bridge: WatchdeskBridge): Transport {
  return {
    kind: 'ipc',
    call: (name, request) => (bridge.methods[name] as (r: unknown) => Promise<Result<unknown>>)(request),
    onPush: (listener) => bridge.onPush(listener),
  }
}

export function httpTransport(token: string, base = ''): Transport {
  const headers = { authorization: `Bearer ${token}` }
  return {
    kind: 'http',
    async call(name, request) {
      try {
        const response = await fetch(`${base}/api/call/${name}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(request ?? {}),
        })
        return (await response.json()) as Result<unknown>
      } catch (error) {
        return err(
          'unavailable',
          `The console's back end did not answer (${(error as Error).message}). Is watchdesk serve still running?`,
        )
      }
    },
    onPush(listener) {
      const controller = new AbortController()
      void streamPushes(`${base}/api/push`, headers, listener, controller.signal)
      return () => controller.abort()
    },
  }
}

/** Server-sent events read with fetch (EventSource cannot send the Authorization header);
 * reconnects with a growing pause while the back end is away. */
async function streamPushes(
  url: string,
  headers: Record<string, string>,
  listener: (message: PushMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  let pauseMs = 500
  while (!signal.aborted) {
    try {
      const response = await fetch(url, { headers, signal })
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`)
      pauseMs = 500
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n')
          if (data) listener(JSON.parse(data) as PushMessage)
        }
      }
    } catch {
      if (signal.aborted) return
    }
    await new Promise((r) => setTimeout(r, pauseMs))
    pauseMs = Math.min(pauseMs * 2, 10_000)
  }
}

export interface Client {
  transport: Transport['kind']
  call<K extends MethodName>(name: K, request: RequestOf<K>): Promise<Result<ResponseOf<K>>>
  onPush<T extends PushTopic>(topic: T, listener: (payload: PushPayload<T>) => void): () => void
}

export function createClient(transport: Transport): Client {
  const listeners = new Map<PushTopic, Set<(payload: unknown) => void>>()
  let detach: (() => void) | null = null
  const dispatch = (message: PushMessage) => listeners.get(message.topic)?.forEach((l) => l(message.payload))
  return {
    transport: transport.kind,
    call: (name, request) => transport.call(name, request) as never,
    onPush(topic, listener) {
      const set = listeners.get(topic) ?? new Set()
      listeners.set(topic, set)
      set.add(listener as (payload: unknown) => void)
      detach ??= transport.onPush(dispatch)
      return () => set.delete(listener as (payload: unknown) => void)
    },
  }
}

const tokenKey = 'watchdesk.token'

/** serve mode: the token arrives once in the URL; keep it for this tab and take it out of the address bar. */
export function takeLaunchToken(location: Location, storage: Storage, history: History): string | null {
  const params = new URLSearchParams(location.search)
  const fromUrl = params.get('token')
  if (fromUrl) {
    storage.setItem(tokenKey, fromUrl)
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

function pickTransport(): Transport | null {
  if (window.watchdesk) return ipcTransport(window.watchdesk)
  const token = takeLaunchToken(window.location, window.sessionStorage, window.history)
  return token ? httpTransport(token) : null
}

const transport = pickTransport()
/** null in a browser tab opened without the launch token. */
export const api: Client | null = transport ? createClient(transport) : null

import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { SyncAnchor, SyncCursorRefusal } from '../../shared/contract/sync'
import type { SyncPage } from '../../shared/contract/sync'

/** Why a request to a relay failed, in words an operator can act on. */
function describeStatus(status: number, body: string): string {
  if (status === 401)
    return 'The relay refused the token (revoked, or never created there). Create one on the relay (watchdesk relay token create NAME) and set it again.'
  let detail = body.slice(0, 200)
  try {
    detail = (JSON.parse(body) as { error?: string }).error ?? detail
  } catch {
    // not JSON: keep the text
  }
  return `The relay answered ${status} (${detail}).`
}

function describeError(url: string, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const why = cause?.code ?? cause?.message ?? (error as Error).message
  return `The relay at ${url} cannot be reached (${why}). Check that it runs and the URL, then it reconnects by itself.`
}

/** A failure of a response: `conflict` (with the refusal as detail) when the relay refused the
 * cursor (its store was replaced or restored: the runner re-anchors), else by status. */
function failureOf(status: number, text: string) {
  if (status === 401) return err('unauthorized', describeStatus(401, text))
  if (status === 409) {
    let refusal: SyncCursorRefusal | null = null
    try {
      const parsed = SyncCursorRefusal.safeParse(JSON.parse(text))
      refusal = parsed.success ? parsed.data : null
    } catch {
      // not JSON: an ordinary failure
    }
    if (refusal) return err('conflict', describeStatus(409, text), refusal)
  }
  return err('unavailable', describeStatus(status, text))
}

/** Where to read on in a relay whose store no longer knows this console's cursor: after the newest
 * of `ids` (this console's newest events from it, newest first) that the store holds. */
export async function fetchAnchor(
  base: string,
  token: string,
  ids: string[],
  signal?: AbortSignal,
): Promise<Result<SyncAnchor>> {
  const query = ids.map((id) => `id=${encodeURIComponent(id)}`).join('&')
  try {
    const res = await fetch(`${base.replace(/\/+$/, '')}/sync/anchor?${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal,
    })
    const text = await res.text()
    if (!res.ok) return failureOf(res.status, text)
    const anchor = SyncAnchor.safeParse(JSON.parse(text))
    return anchor.success
      ? ok(anchor.data)
      : err(
          'unavailable',
          `The relay at ${base} answered /sync/anchor with something else than an anchor: upgrade it.`,
        )
  } catch (error) {
    return err('unavailable', describeError(base, error))
  }
}

export async function fetchPage(
  base: string,
  token: string,
  after: string,
  limit: number,
  withRemaining = false,
  signal?: AbortSignal,
): Promise<Result<SyncPage>> {
  const url = `${base.replace(/\/+$/, '')}/sync/events?after=${encodeURIComponent(after)}&limit=${limit}${withRemaining ? '&count=1' : ''}`
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal })
    const text = await res.text()
    if (!res.ok) return failureOf(res.status, text)
    return ok(JSON.parse(text) as SyncPage)
  } catch (error) {
    return err('unavailable', describeError(base, error))
  }
}

export type StreamMessage =
  { kind: 'events'; page: SyncPage } | { kind: 'heartbeat'; at: number } | { kind: 'revoked' }

/** Follows `/sync/stream` from `after`, handing each message to `onMessage` and waiting for it
 * (a slow local commit slows the reading: nothing piles up in memory). Resolves when the stream
 * ends, with why; `idleMs` without any message (heartbeats included) counts as a lost relay. */
export async function followStream(
  base: string,
  token: string,
  after: string,
  onMessage: (message: StreamMessage) => Promise<void>,
  options: { signal: AbortSignal; idleMs: number },
): Promise<Result<'ended'>> {
  const url = `${base.replace(/\/+$/, '')}/sync/stream?after=${encodeURIComponent(after)}`
  const idle = new AbortController()
  let watchdog: NodeJS.Timeout | null = null
  const arm = () => {
    if (watchdog) clearTimeout(watchdog)
    watchdog = setTimeout(() => idle.abort(), options.idleMs)
    watchdog.unref()
  }
  const signal = AbortSignal.any([options.signal, idle.signal])
  try {
    arm()
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal })
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '')
      return failureOf(res.status, text)
    }
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) return ok('ended')
      arm()
      buffer += decoder.decode(chunk.value, { stream: true })
      let split: number
      while ((split = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, split)
        buffer = buffer.slice(split + 2)
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
        }
        if (data.length === 0) continue
        if (event === 'events')
          await onMessage({ kind: 'events', page: JSON.parse(data.join('\n')) as SyncPage })
        else if (event === 'heartbeat')
          await onMessage({ kind: 'heartbeat', at: (JSON.parse(data.join('\n')) as { at: number }).at })
        else if (event === 'revoked') {
          await onMessage({ kind: 'revoked' })
          return err('unauthorized', describeStatus(401, ''))
        }
      }
    }
  } catch (error) {
    if (idle.signal.aborted && !options.signal.aborted)
      return err(
        'unavailable',
        `The relay at ${base} stopped answering (no heartbeat for ${Math.round(options.idleMs / 1000)} s). It reconnects by itself.`,
      )
    if (options.signal.aborted) return ok('ended')
    return err('unavailable', describeError(base, error))
  } finally {
    if (watchdog) clearTimeout(watchdog)
  }
}

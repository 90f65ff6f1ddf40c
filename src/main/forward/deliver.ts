import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { createHmac } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { ClaimedForward } from './store.ts'
import type { ForwardTarget } from './targets.ts'

export interface Delivery {
  url: string
  body: Buffer
  headers: Record<string, string>
  timeoutMs: number
  agent?: HttpAgent
  /** Bytes of the answer body kept (2 KB for the record; more for an authorization relay). */
  keepBytes: number
}

export interface DeliveryOutcome {
  /** The HTTP status; null when no answer came. */
  status: number | null
  latencyMs: number
  error: string | null
  response: Buffer
  contentType: string | null
}

export const responseKeptBytes = 2048

/** One POST to a target. Never throws: a refused connection or a time-out is an outcome. */
export function deliver(d: Delivery): Promise<DeliveryOutcome> {
  const started = performance.now()
  return new Promise((resolve) => {
    let settled = false
    const finish = (o: Omit<DeliveryOutcome, 'latencyMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...o, latencyMs: Math.round((performance.now() - started) * 100) / 100 })
    }
    const fail = (error: string) =>
      finish({ status: null, error, response: Buffer.alloc(0), contentType: null })
    let url: URL
    try {
      url = new URL(d.url)
    } catch {
      return fail(`the target URL ${d.url} is not valid`)
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(
      url,
      {
        method: 'POST',
        agent: d.agent,
        headers: { ...d.headers, 'content-length': String(d.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = []
        let kept = 0
        let received = 0
        const length = Number(res.headers['content-length'] ?? NaN)
        const answered = () =>
          finish({
            status: res.statusCode ?? null,
            error: statusError(res.statusCode ?? 0),
            response: Buffer.concat(chunks),
            contentType: contentTypeOf(res.headers),
          })
        res.on('data', (chunk: Buffer) => {
          const part = chunk.subarray(0, d.keepBytes - kept)
          chunks.push(part)
          kept += part.length
          received += chunk.length
          // A short answer that is all here ends by itself (its connection is reused).
          if (kept < d.keepBytes || res.complete || received >= length) return
          // Enough kept: the rest of a long answer is never read (a 50 MB answer would otherwise be
          // downloaded at every attempt). Closing the connection is the only way to stop it.
          answered()
          res.destroy()
        })
        res.on('end', answered)
        res.on('error', (e) => fail(`the answer broke off (${e.message})`))
      },
    )
    const timer = setTimeout(() => {
      fail(`no answer within ${d.timeoutMs} ms`)
      req.destroy()
    }, d.timeoutMs)
    req.on('error', (e: NodeJS.ErrnoException) => fail(connectionError(e, url)))
    req.end(d.body)
  })
}

export function agentFor(url: string, concurrency: number): HttpAgent {
  const options = { keepAlive: true, maxSockets: concurrency }
  return url.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options)
}

const statusError = (status: number): string | null =>
  status >= 200 && status < 300 ? null : `the target answered ${status}`

const contentTypeOf = (headers: IncomingHttpHeaders): string | null => {
  const value = headers['content-type']
  return typeof value === 'string' ? value : null
}

function connectionError(e: NodeJS.ErrnoException, url: URL): string {
  if (e.code === 'ECONNREFUSED') return `connection refused at ${url.host}: is the app running?`
  if (e.code === 'ENOTFOUND') return `${url.hostname} does not resolve`
  if (e.code === 'ECONNRESET') return `the connection to ${url.host} was reset`
  return `${e.code ?? 'error'}: ${e.message}`
}

/** The headers of one attempt: signed with the target's own secret, else the service's original
 * signature passed on (an edited body is sent unsigned rather than with a signature it fails). */
export function attemptHeaders(
  target: ForwardTarget,
  row: ClaimedForward,
  body: Buffer,
  originalSignature: (endpoint: string | null, body: Buffer) => string | null,
): Record<string, string> {
  const signature = target.secret
    ? createHmac('sha256', target.secret).update(body).digest('hex')
    : row.editedBody
      ? null
      : originalSignature(row.endpoint, body)
  return {
    'content-type': 'application/json',
    ...target.headers,
    'x-watchdesk-event-id': row.eventId,
    'x-watchdesk-attempt': String(row.attempt),
    'x-watchdesk-target': target.name,
    ...(row.replay ? { 'x-watchdesk-replay': '1' } : {}),
    ...(row.editedBody ? { 'x-watchdesk-edited': '1' } : {}),
    ...(signature ? { 'x-service-signature': signature } : {}),
  }
}

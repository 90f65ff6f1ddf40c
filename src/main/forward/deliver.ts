import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http'
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

/** One POST to a target. Never throws: a refused connection, a time-out or a request Node cannot
 * write is an outcome. */
export function deliver(d: Delivery): Promise<DeliveryOutcome> {
  const started = performance.now()
  return new Promise((resolve) => {
    let settled = false
    // Set once the request exists; `finish` may run before that (a URL or a header refused).
    let timer: NodeJS.Timeout | undefined = undefined
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
    // node:https (Node's TLS stack, about 40 ms of CPU) loads with the first https target, not at start.
    const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : httpRequest
    let req: ClientRequest
    try {
      const headers = { ...d.headers, 'content-length': String(d.body.length) }
      req = send(url, { method: 'POST', agent: d.agent, headers }, (res) =>
        readAnswer(res, d.keepBytes, finish, fail),
      )
    } catch (error) {
      // Node refuses a request it cannot write (a header value with a control character, say): this
      // attempt fails with the cause, the row is retried on its schedule, the worker goes on.
      return fail(`the request could not be made (${(error as Error).message})`)
    }
    timer = setTimeout(() => {
      fail(`no answer within ${d.timeoutMs} ms`)
      req.destroy()
    }, d.timeoutMs)
    req.on('error', (e: NodeJS.ErrnoException) => fail(connectionError(e, url)))
    req.end(d.body)
  })
}

/** Keeps the first `keepBytes` of the answer and settles with it. */
function readAnswer(
  res: IncomingMessage,
  keepBytes: number,
  finish: (o: Omit<DeliveryOutcome, 'latencyMs'>) => void,
  fail: (error: string) => void,
): void {
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
    const part = chunk.subarray(0, keepBytes - kept)
    chunks.push(part)
    kept += part.length
    received += chunk.length
    // A short answer that is all here ends by itself (its connection is reused).
    if (kept < keepBytes || res.complete || received >= length) return
    // Enough kept: the rest of a long answer is never read (a 50 MB answer would otherwise be
    // downloaded at every attempt). Closing the connection is the only way to stop it.
    answered()
    res.destroy()
  })
  res.on('end', answered)
  res.on('error', (e) => fail(`the answer broke off (${e.message})`))
}

export function agentFor(url: string, concurrency: number): HttpAgent {
  const options = { keepAlive: true, maxSockets: concurrency }
  return url.startsWith('https:')
    ? new (process.getBuiltinModule('node:https').Agent)(options)
    : new HttpAgent(options)
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
    ...encodedHeader('x-watchdesk-event-id', row.eventId),
    'x-watchdesk-attempt': String(row.attempt),
    ...encodedHeader('x-watchdesk-target', target.name),
    ...(row.replay ? { 'x-watchdesk-replay': '1' } : {}),
    ...(row.editedBody ? { 'x-watchdesk-edited': '1' } : {}),
    ...(signature ? { 'x-service-signature': signature } : {}),
  }
}

/** A header value as it goes on the wire: itself when every character is visible ASCII (what
 * every id the service issues is, so apps see the header they always saw), else its UTF-8 bytes
 * percent-encoded (`%` included) and flagged by `<name>-encoding: percent`. An id such as
 * `evt_東京_1` or one holding an ESC cannot travel as is: Node refuses a control character and
 * would send the others as Latin-1. The app decodes with `decodeURIComponent` when the flag is
 * there (docs/forward.md). */
export function encodedHeader(name: string, value: string): Record<string, string> {
  if (/^[\x21-\x7e]*$/.test(value)) return { [name]: value }
  return { [name]: percentEncoded(value), [`${name}-encoding`]: 'percent' }
}

/** Every UTF-8 byte outside visible ASCII, and `%`, as `%XX`. (A lone surrogate, which UTF-8
 * cannot carry, becomes U+FFFD, as SQLite stores it.) */
export function percentEncoded(value: string): string {
  let out = ''
  for (const byte of Buffer.from(value, 'utf8')) {
    out +=
      byte >= 0x21 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { Rejection } from '../../shared/contract/events'
import { authorizationRequestType } from '../../shared/events'
import { ok } from '../../shared/result'
import type { Err, Result } from '../../shared/result'
import type { Ingest } from './ingest'
import type { SecretsCache } from './secrets-cache'
import { listenerIdentityHeader } from './public-url'
import { parseEnvelope, verifySignature } from './verify'
import { DiagnosisBudget, explainRejection } from './forensics'
import { BodyBudget } from './body-budget'
import { guardConnections } from '../transport/connection-guard'

/** A webhook listener that could not start: where it tried, the cause and the fix. */
export interface ListenerProblem {
  host: string
  port: number
  /** Another program (often another watchdesk) holds the port. */
  inUse: boolean
  cause: string
  fix: string
  /** `cause` and `fix` as one sentence, for logs, stderr and the Events view. */
  message: string
}

export interface ListenerSettings {
  host: string
  port: number
  maxBodyBytes: number
  headersTimeoutMs: number
  bodyTimeoutMs: number
  /** Connections held at once (`listener.maxConnections`); one more is answered 503. */
  maxConnections?: number
  /** Body bytes being received, all requests together (`listener.maxBodyBytesInFlight`). */
  maxBodyBytesInFlight?: number
  tls?: { certFile: string; keyFile: string }
  /** Answer body for card.authorization.request. */
  authorizationAnswer: () => Record<string, unknown>
  /** Sent in every answer (x-watchdesk-listener), so a probe through a tunnel knows it reached
   * this listener and not another receiver. */
  identity?: string
}

export interface ListenerCounters {
  accepted: number
  duplicates: number
  rejected: number
  /** Redeliveries whose body differed from the stored one (stored as conflicts, answered 200). */
  conflicts: number
  /** Answered 503: the database could not commit. */
  unavailable: number
}

export interface ListenerHooks {
  ingest: Ingest
  secrets: SecretsCache
  /** Called after every answer: milliseconds from request to the answer's last byte. */
  answered(ms: number, type: string | null): void
  rejected(rejection: Rejection): void
  counters: ListenerCounters
  /** card.authorization.request (first delivery), once committed (`elapsedMs` after it arrived):
   * the forward target's answer to relay, or null to answer `authorizationAnswer` (no target, or
   * none within its budget, which counts from the arrival). */
  relayAuthorization?: (seq: number, elapsedMs: number) => Promise<RelayedAnswer | null>
}

export interface RelayedAnswer {
  status: number
  body: Buffer
  contentType: string | null
}

export interface RunningListener {
  url: string
  port: number
  /** The connections held now (ingest's `openConnections`). */
  connections(): number
  close(): Promise<void>
}

/** Sized for the service's delivery pattern: a few hundred deliveries a second of a few kB each,
 * answered within milliseconds, hold a handful of connections and well under 1 MiB at once. */
export const listenerLimitDefaults = {
  maxConnections: 512,
  maxBodyBytesInFlight: 16 * 1024 * 1024,
  /** What a 503 for a limit asks the sender to wait: the service retries on its own schedule. */
  retryAfterSeconds: 1,
} as const

const webhookPath = /^\/webhooks(?:\/([A-Za-z0-9_.:-]{1,200}))?\/?$/

/** The webhook listener: its own server and port, so a tunnel to it exposes nothing else. */
export async function startListener(
  settings: ListenerSettings,
  hooks: ListenerHooks,
): Promise<Result<RunningListener, ListenerProblem>> {
  const options = {
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.headersTimeoutMs + settings.bodyTimeoutMs,
    // Node checks the two time-outs above on this interval (30 s by default).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.headersTimeoutMs / 2))),
    keepAliveTimeout: 5_000,
  }
  let server: Server
  const deadlines = new BodyDeadlines(settings.bodyTimeoutMs)
  const diagnoses = new DiagnosisBudget()
  const budget = new BodyBudget(
    Math.max(
      settings.maxBodyBytes,
      settings.maxBodyBytesInFlight ?? listenerLimitDefaults.maxBodyBytesInFlight,
    ),
  )
  const onRequest = (req: IncomingMessage, res: ServerResponse) =>
    handle(req, res, settings, hooks, { deadlines, budget }, diagnoses)
  if (settings.tls) {
    let cert: Buffer, key: Buffer
    try {
      cert = readFileSync(settings.tls.certFile)
      key = readFileSync(settings.tls.keyFile)
    } catch (error) {
      return listenerFailure(settings, {
        inUse: false,
        cause: `The listener's TLS files cannot be read (${(error as Error).message}).`,
        fix: 'Fix listener.tls.certFile / keyFile, then restart watchdesk.',
      })
    }
    // node:https (Node's TLS stack, about 40 ms of CPU) loads only for a TLS listener.
    server = process.getBuiltinModule('node:https').createServer({ ...options, cert, key }, onRequest)
  } else {
    server = createServer(options, onRequest)
  }
  const maxConnections = settings.maxConnections ?? listenerLimitDefaults.maxConnections
  const guard = guardConnections(
    server,
    {
      maxConnections,
      retryAfterSeconds: listenerLimitDefaults.retryAfterSeconds,
      refusal: () =>
        `the listener holds ${maxConnections} connections already (listener.maxConnections); retry later`,
    },
    settings.tls !== undefined,
  )
  return new Promise((resolveListen) => {
    const onError = (error: NodeJS.ErrnoException) => {
      guard.stop()
      resolveListen(bindFailure(settings, error))
    }
    server.once('error', onError)
    const listening = () => {
      server.off('error', onError)
      const port = (server.address() as AddressInfo).port
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host
      const url = `${settings.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`
      resolveListen(
        ok({
          url,
          port,
          connections: () => guard.held(),
          close: () =>
            new Promise<void>((resolveClose) => {
              server.close(() => resolveClose())
              server.closeAllConnections()
              deadlines.stop()
              guard.stop()
            }),
        }),
      )
    }
    try {
      server.listen(settings.port, settings.host, listening)
    } catch (error) {
      // A port out of range throws here rather than emitting 'error'.
      server.off('error', onError)
      guard.stop()
      resolveListen(bindFailure(settings, error as NodeJS.ErrnoException))
    }
  })
}

const listenerFailure = (
  settings: Pick<ListenerSettings, 'host' | 'port'>,
  problem: Pick<ListenerProblem, 'inUse' | 'cause' | 'fix'>,
): Err<ListenerProblem> => ({
  ok: false,
  error: {
    host: settings.host,
    port: settings.port,
    ...problem,
    message: `${problem.cause} ${problem.fix}`,
  },
})

/** Why the listener cannot bind, as the cause and the fix; `inUse` when the port is taken (the
 * usual case: another watchdesk, or another program, already listens there). */
export function bindFailure(
  settings: Pick<ListenerSettings, 'host' | 'port'>,
  error: NodeJS.ErrnoException,
): Err<ListenerProblem> {
  const { host, port } = settings
  const retry = 'set listener.port / --listener-port, then restart watchdesk.'
  switch (error.code) {
    case 'EADDRINUSE':
      return listenerFailure(settings, {
        inUse: true,
        cause: `Port ${port} on ${host} is in use (another watchdesk?).`,
        fix: `Stop it, or ${retry}`,
      })
    case 'EACCES':
      return listenerFailure(settings, {
        inUse: false,
        cause: `Port ${port} on ${host} may not be bound by this user (${error.message}).`,
        fix: `Use a port above 1023: ${retry}`,
      })
    case 'EADDRNOTAVAIL':
      return listenerFailure(settings, {
        inUse: false,
        cause: `${host} is not an address of this machine, so the listener cannot bind to it.`,
        fix: 'Set listener.host to 127.0.0.1 (or an address this machine has), then restart watchdesk.',
      })
    default:
      return listenerFailure(settings, {
        inUse: false,
        cause: `The webhook listener cannot listen on ${host}:${port} (${error.message}).`,
        fix: 'Check listener.host and listener.port, then restart watchdesk.',
      })
  }
}

function handle(
  req: IncomingMessage,
  res: ServerResponse,
  settings: ListenerSettings,
  hooks: ListenerHooks,
  limits: BodyLimits,
  diagnoses: DiagnosisBudget,
): void {
  const started = performance.now()
  let eventType: string | null = null
  let probe = false
  // `on`, not `once`: 'finish' comes once, and `once` costs every request a wrapper (issue 35).
  res.on('finish', () => {
    if (!probe) hooks.answered(performance.now() - started, eventType)
  })
  if (settings.identity) res.setHeader(listenerIdentityHeader, settings.identity)
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  const remote = req.socket.remoteAddress ?? 'unknown'
  const reject = (status: number, reason: string, size: number, answer = reason) => {
    hooks.counters.rejected++
    hooks.rejected({ at: Date.now(), path: path.slice(0, 300), status, reason, size, remote })
    send(res, status, { error: answer })
  }
  const route = webhookPath.exec(path)
  if (!route) {
    req.resume()
    return reject(404, 'unknown path', 0, 'not found: webhooks go to /webhooks or /webhooks/<endpoint id>')
  }
  if (req.method === 'HEAD') {
    // The public URL's reachability check (public-url.ts): not a delivery, not a rejection.
    probe = true
    req.resume()
    res.writeHead(204, { allow: 'POST' })
    res.end()
    return
  }
  if (req.method !== 'POST') {
    req.resume()
    res.setHeader('allow', 'POST')
    return reject(405, `method ${req.method ?? '?'} not allowed`, 0, 'webhooks are delivered with POST')
  }
  // Answers, then drops the connection shortly after: nothing more of that body is kept.
  const rejectAndClose = (status: number, reason: string, size: number, answer: string) => {
    res.setHeader('connection', 'close')
    reject(status, reason, size, answer)
    req.resume()
    res.once('finish', () => setTimeout(() => req.destroy(), 500).unref())
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > settings.maxBodyBytes)
    return rejectAndClose(413, 'body too large', declared, tooLarge(settings))
  const endpoint = route[1]
  const signature = req.headers['x-service-signature']
  readBody(req, settings, limits, (outcome) => {
    if (outcome.kind === 'too-large')
      return rejectAndClose(413, 'body too large', outcome.size, tooLarge(settings))
    if (outcome.kind === 'busy') {
      res.setHeader('retry-after', String(listenerLimitDefaults.retryAfterSeconds))
      return rejectAndClose(
        503,
        'body bytes in flight at the limit (listener.maxBodyBytesInFlight)',
        outcome.size,
        'the listener is receiving as many body bytes as it holds at once; retry later',
      )
    }
    if (outcome.kind === 'timeout') {
      return rejectAndClose(
        408,
        `body not received within ${settings.bodyTimeoutMs} ms`,
        outcome.size,
        'request body timed out',
      )
    }
    if (outcome.kind === 'aborted') return
    const body = outcome.body
    const verify = () =>
      verifySignature(body, signature, endpoint ? hooks.secrets.only(endpoint) : hooks.secrets.all())
    const check = verify()
    if (check.ok) return accept(body, check.endpoint)
    if (check.reason !== 'signature does not match' && check.reason !== 'no secret configured')
      return refuse(check.reason, body)
    // Another process (`watchdesk webhooks create`) may have written a secret to the keychain since
    // the cache was filled: re-read it (rate-limited, shared by concurrent callers) and try again.
    void hooks.secrets.refresh().then((reread) => {
      const again = reread ? verify() : check
      if (again.ok) accept(body, again.endpoint)
      else refuse(again.reason, body)
    })
  })

  function refuse(why: string, body: Buffer): void {
    const reason =
      why === 'no secret configured' && endpoint
        ? `no secret configured for endpoint ${endpoint}`
        : (explainRejection(why, body, signature, hooks.secrets, endpoint ?? null, diagnoses) ?? why)
    // The answer stays the same whatever the diagnosis found: it explains, it never accepts.
    reject(401, reason, body.length, 'invalid or missing X-Service-Signature')
  }

  function accept(body: Buffer, matched: string): void {
    const envelope = parseEnvelope(body)
    if (!envelope.ok) return reject(400, envelope.error.message, body.length)
    eventType = envelope.value.type
    void hooks.ingest
      .commit({
        envelope: envelope.value,
        body,
        endpoint: matched,
        at: Date.now(),
        remote: peerOf(req, remote),
      })
      .then((committed) => {
        if (!committed.ok) {
          if (committed.error.code === 'bad_request') return reject(400, committed.error.message, body.length)
          hooks.counters.unavailable++
          // The cause (disk full, the store stalled…) goes to the sender's delivery log too.
          return send(res, 503, { error: `${committed.error.message} Retry later.` })
        }
        if (committed.value.duplicate) hooks.counters.duplicates++
        else hooks.counters.accepted++
        if (committed.value.conflict) hooks.counters.conflicts++
        if (eventType !== authorizationRequestType) return send(res, 200, {})
        if (!hooks.relayAuthorization || committed.value.duplicate)
          return send(res, 200, settings.authorizationAnswer())
        void hooks.relayAuthorization(committed.value.summary.seq, performance.now() - started).then(
          (relayed) => (relayed ? sendRaw(res, relayed) : send(res, 200, settings.authorizationAnswer())),
          () => send(res, 200, settings.authorizationAnswer()),
        )
      })
  }
}

const tooLarge = (settings: ListenerSettings) => `the body may be at most ${settings.maxBodyBytes} bytes`

/** Who delivered: the socket's address, and behind a proxy or tunnel (which the socket names) the
 * client it says it forwards, first (bounded: the header is the sender's text). */
function peerOf(req: IncomingMessage, socket: string): string {
  const forwarded = req.headers['x-forwarded-for']
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim()
  return first ? `${first.slice(0, 64)} via ${socket}` : socket
}

type BodyOutcome =
  | { kind: 'body'; body: Buffer }
  | { kind: 'too-large'; size: number }
  | { kind: 'timeout'; size: number }
  /** Evicted from (or did not fit in) the listener's body budget. */
  | { kind: 'busy'; size: number }
  | { kind: 'aborted' }

interface BodyLimits {
  deadlines: BodyDeadlines
  budget: BodyBudget
}

interface Deadline {
  at: number
  expire(): void
}

/** The body time-outs of the requests being read, on one timer for the listener. A timer per
 * request cost every delivery a timer list created and dropped again (the profile's top timer
 * frames), when nearly every body has arrived within a millisecond. All share one duration, so
 * the set's insertion order is the order of their deadlines. */
export class BodyDeadlines {
  private readonly waiting = new Set<Deadline>()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly ms: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(expire: () => void): Deadline {
    const deadline = { at: this.now() + this.ms, expire }
    this.waiting.add(deadline)
    if (this.timer === null) this.arm(this.ms)
    return deadline
  }

  remove(deadline: Deadline): void {
    this.waiting.delete(deadline)
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.waiting.clear()
  }

  private arm(ms: number): void {
    // Unreferenced: a body being read keeps its socket (and the process) alive anyway.
    this.timer = setTimeout(this.sweep, Math.max(1, Math.ceil(ms))).unref()
  }

  private readonly sweep = (): void => {
    this.timer = null
    const now = this.now()
    const expired: Deadline[] = []
    for (const deadline of this.waiting) {
      if (deadline.at > now) {
        this.arm(deadline.at - now)
        break
      }
      this.waiting.delete(deadline)
      expired.push(deadline)
    }
    // Re-armed before any answer is sent, so one that throws cannot leave the others unwatched.
    for (const deadline of expired) deadline.expire()
  }
}

/** Reads the body up to the limit, stopping early when it is too large or too slow. */
function readBody(
  req: IncomingMessage,
  settings: ListenerSettings,
  { deadlines, budget }: BodyLimits,
  done: (outcome: BodyOutcome) => void,
): void {
  let chunks: Buffer[] = []
  let size = 0
  let finished = false
  const finish = (outcome: BodyOutcome) => {
    if (finished) return
    finished = true
    deadlines.remove(deadline)
    budget.release(hold)
    req.off('data', onData)
    // What was received is not kept while the answer goes out (an evicted body frees its bytes).
    if (outcome.kind !== 'body') chunks = []
    done(outcome)
  }
  const deadline = deadlines.add(() => finish({ kind: 'timeout', size }))
  const hold = budget.open(() => finish({ kind: 'busy', size }))
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > settings.maxBodyBytes) return finish({ kind: 'too-large', size })
    if (!budget.take(hold, chunk.length)) return finish({ kind: 'busy', size })
    chunks.push(chunk)
  }
  req.on('data', onData)
  // `on`, not `once`: `finish` acts once whatever comes after, and `once` cost every request three
  // wrappers (issue 35: the listener's thread collects garbage for what a request allocates).
  req.on('end', () =>
    finish({ kind: 'body', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }),
  )
  req.on('error', () => finish({ kind: 'aborted' }))
  req.on('close', () => {
    if (!req.complete) finish({ kind: 'aborted' })
  })
}

function sendRaw(res: ServerResponse, answer: RelayedAnswer): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(answer.status, {
    'content-type': answer.contentType ?? 'application/json',
    'content-length': answer.body.length,
  })
  res.end(answer.body)
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

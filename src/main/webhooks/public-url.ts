import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'

/** Reaching the listener the way the payments service does: through the public URL the operator
 * gave (a tunnel or a reverse proxy). Every failure gets its own category, so the sentence names
 * the cause (DNS, TLS, connection, time-out, another receiver) and the fix. */

/** Every answer of this console's listener carries this header with `identity`; another receiver
 * behind the same URL does not. */
export const listenerIdentityHeader = 'x-watchdesk-listener'

export type ProbeFailure = 'dns' | 'tls' | 'connection' | 'timeout'

export type ProbeOutcome =
  | { kind: 'answered'; status: number; headers: IncomingHttpHeaders; body: string }
  | { kind: 'failed'; category: ProbeFailure; code: string; detail: string }

export interface ProbeOptions {
  method: 'POST' | 'HEAD'
  headers?: Record<string, string>
  body?: string
  timeoutMs?: number
  /** The environment: NODE_EXTRA_CA_CERTS adds certificates trusted beside the system's. */
  env?: NodeJS.ProcessEnv
}

const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA'])
const timeoutCodes = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'])

export function categorise(code: string): ProbeFailure {
  if (dnsCodes.has(code)) return 'dns'
  if (timeoutCodes.has(code)) return 'timeout'
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME|EPROTO/.test(code)) return 'tls'
  return 'connection'
}

function trustedCa(env: NodeJS.ProcessEnv | undefined): string[] | undefined {
  const file = env?.NODE_EXTRA_CA_CERTS
  if (!file) return undefined
  try {
    return [...process.getBuiltinModule('node:tls').rootCertificates, readFileSync(file, 'utf8')]
  } catch {
    return undefined
  }
}

/** One request to `url`, with node's own http(s) so the error codes stay precise. */
export function probe(url: URL, options: ProbeOptions): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? 8_000
  return new Promise((resolve) => {
    let settled = false
    const done = (outcome: ProbeOutcome) => {
      if (settled) return
      settled = true
      resolve(outcome)
    }
    // node:https (Node's TLS stack, about 40 ms of CPU) loads with the first https probe, not at start.
    const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : httpRequest
    const req = send(
      url,
      {
        method: options.method,
        headers: {
          ...options.headers,
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
        ca: url.protocol === 'https:' ? trustedCa(options.env) : undefined,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size <= 4096) chunks.push(chunk)
        })
        res.on('end', () =>
          done({
            kind: 'answered',
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
          }),
        )
        res.on('error', (error) => done(failed(error)))
      },
    )
    req.on('timeout', () => {
      done({
        kind: 'failed',
        category: 'timeout',
        code: 'ETIMEDOUT',
        detail: `no answer within ${timeoutMs} ms`,
      })
      req.destroy()
    })
    req.on('error', (error) => done(failed(error)))
    req.end(options.body)
  })
}

function failed(error: Error): ProbeOutcome {
  const code = (error as NodeJS.ErrnoException).code ?? error.name
  return { kind: 'failed', category: categorise(code), code, detail: error.message }
}

/** The sentence and the fix for a request that reached nothing. */
export function explainFailure(
  url: URL,
  outcome: Extract<ProbeOutcome, { kind: 'failed' }>,
  listenerUrl: string | null,
): { message: string; fix: string } {
  const to = listenerUrl ? `${listenerUrl}/webhooks` : "this console's listener"
  switch (outcome.category) {
    case 'dns':
      return {
        message: `The public URL's host ${url.hostname} does not resolve (DNS ${outcome.code}): the payments service cannot find it either.`,
        fix: `Check the address for typos and that the tunnel is running (tunnel addresses often change on restart), then connect again with the address it prints.`,
      }
    case 'tls':
      return {
        message: `The TLS handshake with ${url.host} failed (${outcome.code}: ${outcome.detail}): the payments service refuses such a certificate too.`,
        fix: `Serve ${url.host} with a certificate from a public authority for that name (tunnels do this for you); a self-signed or expired certificate will not do.`,
      }
    case 'timeout':
      return {
        message: `${url.host} accepted no request within the time limit (${outcome.detail}).`,
        fix: `Check that the tunnel or reverse proxy is up and forwards to ${to}.`,
      }
    case 'connection':
      return {
        message: `Nothing accepted a connection at ${url.host} (${outcome.code}: ${outcome.detail}).`,
        fix: `Start the tunnel or reverse proxy and check its port; it must forward to ${to}.`,
      }
  }
}

/** This listener answered, but not on a webhook path: the tunnel or proxy forwards the URL's path
 * as it is, and that path is not /webhooks. */
export function explainPath(url: URL, listenerUrl: string | null): { message: string; fix: string } {
  const path = url.pathname || '/'
  return {
    message: `The path ${path} does not reach /webhooks: this console's listener answered 404 for it through ${url.host}, so the service's deliveries would be refused.`,
    fix: `Give the public URL with the path the listener expects (https://${url.host}/webhooks), or make the tunnel or proxy forward ${path} to ${listenerUrl ? `${listenerUrl}/webhooks` : "the listener's /webhooks"}.`,
  }
}

/** An answer that did not come from this listener, or came without storing the event. */
export function explainElsewhere(
  url: URL,
  outcome: Extract<ProbeOutcome, { kind: 'answered' }>,
  listenerUrl: string | null,
  fromThisListener: boolean,
): { message: string; fix: string } {
  const to = listenerUrl ? `${listenerUrl}/webhooks` : "this console's listener"
  const answer = `${outcome.status}${outcome.body ? ` (${outcome.body.slice(0, 160)})` : ''}`
  if (fromThisListener && outcome.status === 404) return explainPath(url, listenerUrl)
  if (fromThisListener && outcome.status === 401)
    return {
      message: `This console's listener refused the test event's signature (401) through ${url.host}: the X-Service-Signature header did not arrive intact.`,
      fix: 'Make the tunnel or proxy pass the X-Service-Signature header and the body unchanged (some proxies drop unknown headers or re-encode bodies).',
    }
  if (fromThisListener)
    return {
      message: `This console's listener answered ${answer} through ${url.host} but did not store the test event.`,
      fix: 'Look at the listener’s recent rejections in Events for the reason it gave.',
    }
  return {
    message: `${url.host} answered ${answer}, but the test event never arrived at this console's listener: another receiver answered, so the tunnel or proxy forwards somewhere else.`,
    fix: `Point the tunnel or proxy at ${to} (the listener's own port, not the console's).`,
  }
}

export function answeredByListener(headers: IncomingHttpHeaders, identity: string): boolean {
  return headers[listenerIdentityHeader] === identity
}

import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

/** What a port holds at once, whoever connects: the webhook listener and the relay's sync port.
 * Beyond a limit the new connection is answered `503` with `Retry-After` and closed at once, so
 * nothing a peer holds open grows without bound (file descriptors, parsers, buffers). */
export interface ConnectionLimits {
  /** Sockets held at once. */
  maxConnections: number
  /** Sockets from one address (an IPv6 /64) that have not yet made an authorised request; omitted:
   * no per-address cap and no deadline (the webhook listener, whose sender authenticates with its
   * body's signature). */
  unauthenticatedPerAddress?: number
  /** A socket that has made no authorised request within this is closed. */
  unauthenticatedMs?: number
  /** Seconds a refused client is asked to wait (`Retry-After`). */
  retryAfterSeconds: number
  /** The sentence in the 503's body for each limit (names the limit and its config key). */
  refusal: (limit: 'connections' | 'address') => string
}

export interface ConnectionGuard {
  /** This socket made an authorised request: the per-address cap and the deadline no longer apply. */
  trust(socket: Socket): void
  held(): number
  /** Connections refused (503) or closed at the unauthenticated deadline so far. */
  refused(): number
  stop(): void
}

/** A plain server's sockets are answered 503 by the guard; a TLS server's raw sockets are counted
 * by Node's own `maxConnections` (closed without an answer), as a 503 cannot be sent before the
 * handshake. */
export function guardConnections(server: Server, limits: ConnectionLimits, tls = false): ConnectionGuard {
  let held = 0
  let refused = 0
  /** Untrusted sockets with their deadline, oldest first (all share one duration). */
  const untrusted = new Map<Socket, number>()
  const byAddress = new Map<string, number>()
  const addressOf = (socket: Socket) => addressKey(socket.remoteAddress ?? 'unknown')

  const forget = (socket: Socket) => {
    if (!untrusted.delete(socket)) return
    const key = addressOf(socket)
    const n = (byAddress.get(key) ?? 1) - 1
    if (n > 0) byAddress.set(key, n)
    else byAddress.delete(key)
  }

  const refuse = (socket: Socket, limit: 'connections' | 'address') => {
    refused++
    const body = JSON.stringify({ error: limits.refusal(limit) })
    // Nothing of its request is read: the answer goes out, the socket closes shortly after.
    socket.pause()
    socket.on('error', () => {})
    if (tls) return void socket.destroy()
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nretry-after: ${limits.retryAfterSeconds}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `connection: close\r\n\r\n${body}`,
    )
    setTimeout(() => socket.destroy(), 1_000).unref()
  }

  const perAddress = limits.unauthenticatedPerAddress
  const onConnection = (socket: Socket) => {
    if (held >= limits.maxConnections) return refuse(socket, 'connections')
    if (perAddress !== undefined) {
      const key = addressOf(socket)
      const n = byAddress.get(key) ?? 0
      if (n >= perAddress) return refuse(socket, 'address')
      byAddress.set(key, n + 1)
      untrusted.set(socket, performance.now() + (limits.unauthenticatedMs ?? 5_000))
    }
    held++
    socket.once('close', () => {
      held--
      forget(socket)
    })
  }
  if (tls) {
    server.maxConnections = limits.maxConnections
    server.on('secureConnection', onConnection)
  } else server.on('connection', onConnection)

  // One sweep for all deadlines; the map's order is the deadlines' order.
  const sweepMs = Math.max(50, Math.min(1_000, Math.floor((limits.unauthenticatedMs ?? 5_000) / 4)))
  const sweep =
    perAddress === undefined
      ? null
      : setInterval(() => {
          const now = performance.now()
          for (const [socket, deadline] of untrusted) {
            if (deadline > now) break
            forget(socket)
            refused++
            socket.destroy()
          }
        }, sweepMs).unref()

  return {
    trust: forget,
    held: () => held,
    refused: () => refused,
    stop() {
      if (sweep) clearInterval(sweep)
      server.off('connection', onConnection)
      server.off('secureConnection', onConnection)
    },
  }
}

/** The address a per-address cap counts by: IPv4 as is, IPv6 by its /64 (one host's share). */
export function addressKey(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (v4) return v4[1]!
  if (!address.includes(':')) return address
  const [head = '', tail = ''] = address.split('::')
  const groups = head.split(':').filter(Boolean)
  if (groups.length < 4) {
    const rest = tail.split(':').filter(Boolean)
    const missing = 8 - groups.length - rest.length
    groups.push(...Array<string>(Math.max(0, missing)).fill('0'), ...rest)
  }
  return `${groups.slice(0, 4).join(':')}::/64`
}

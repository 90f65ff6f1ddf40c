import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:https'
import type { Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** A stand-in for a tunnel (ngrok, cloudflared) or a reverse proxy: HTTPS on loopback with a
 * throwaway certificate for 127.0.0.1, forwarding every request to `target` (path kept). The
 * certificate is trusted only where `caFile` is passed as NODE_EXTRA_CA_CERTS. */
export interface Tunnel {
  /** https://127.0.0.1:PORT */
  url: string
  caFile: string
  /** Requests forwarded so far (method and path). */
  forwarded: string[]
  close(): Promise<void>
}

/** The tunnel's certificate in `dir`, made once with the system's openssl (a second call reuses it,
 * so a console can be told to trust it before the tunnel starts). */
export function selfSignedCert(dir: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, 'tunnel-cert.pem')
  const keyFile = join(dir, 'tunnel-key.pem')
  if (existsSync(certFile) && existsSync(keyFile)) return { certFile, keyFile }
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  )
  return { certFile, keyFile }
}

export interface TunnelOptions {
  /** Request headers the proxy does not pass on (some proxies drop headers they do not know). */
  dropHeaders?: string[]
}

export function useTunnel(): (dir: string, target: string, options?: TunnelOptions) => Promise<Tunnel> {
  const servers: Server[] = []
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))),
    )
  })
  return async (dir, target, options = {}) => {
    const { certFile, keyFile } = selfSignedCert(dir)
    const forwarded: string[] = []
    const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
      forwarded.push(`${req.method} ${req.url}`)
      const upstream = request(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: passed(req.headers, options.dropHeaders ?? [], new URL(target).host) },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      upstream.on('error', () => {
        res.writeHead(502, { 'content-type': 'text/plain' })
        res.end('bad gateway')
      })
      req.pipe(upstream)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    const { port } = server.address() as AddressInfo
    return {
      url: `https://127.0.0.1:${port}`,
      caFile: certFile,
      forwarded,
      close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
    }
  }
}

function passed(headers: IncomingHttpHeaders, drop: string[], host: string): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { ...headers, host }
  for (const name of drop) delete out[name.toLowerCase()]
  return out
}

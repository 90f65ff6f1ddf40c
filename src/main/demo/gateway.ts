import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** The demo's stand-in for the node-access service: `POST /<slug>/<project uid>` is forwarded to
 * the local node of that slug, so the console polls the same URL shape as in production. */

export interface Gateway {
  url: string
  close(): Promise<void>
}

export async function startGateway(routes: Map<string, string>, projectUid: string): Promise<Gateway> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const server = http.createServer((req, res) => {
    const [, slug, uid] = (req.url ?? '').split('/')
    const target = slug ? routes.get(slug) : undefined
    if (req.method !== 'POST' || !target || uid !== projectUid) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'unknown network or project' }))
      return
    }
    const upstream = http.request(
      target,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' })
        answer.pipe(res)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'the local node is not running' }))
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        agent.destroy()
        server.close(() => resolve())
      }),
  }
}

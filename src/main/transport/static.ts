import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

/** Serves the built renderer; unknown paths fall back to index.html (client-side routes). */
export async function serveStatic(
  root: string,
  pathname: string,
  req: IncomingMessage,
  res: ServerResponse,
  csp: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end()
    return
  }
  const relative = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  let file = join(root, relative)
  if (!file.startsWith(root + sep) && file !== root) {
    res.writeHead(404).end()
    return
  }
  const found = await stat(file).catch(() => null)
  if (!found?.isFile()) file = join(root, 'index.html')
  const info = await stat(file).catch(() => null)
  if (!info) {
    res
      .writeHead(500, { 'content-type': 'text/plain' })
      .end('The renderer is not built: run "npm run build".')
    return
  }
  const isIndex = file.endsWith('index.html')
  res.writeHead(200, {
    'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  })
  if (req.method === 'HEAD') res.end()
  else createReadStream(file).pipe(res)
}

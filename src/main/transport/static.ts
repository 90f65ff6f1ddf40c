import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, resolve, sep } from 'node:path'

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

/** The file under `root` that a decoded URL path names, or null when the path would leave `root`
 * (`/../../package.json`, an encoded `..%2f`). This check is the only thing between the page's URL and
 * the rest of the disk: the path is joined as given, nothing normalises it away before. */
export function fileInside(root: string, decodedPath: string): string | null {
  const base = resolve(root)
  const file = resolve(base, `.${sep}${decodedPath}`)
  return file === base || file.startsWith(base + sep) ? file : null
}

/** Serves the built renderer; unknown paths fall back to index.html (client-side routes).
 * `decodedPath` is the percent-decoded path of the request (http.ts refuses what cannot be decoded). */
export async function serveStatic(
  root: string,
  decodedPath: string,
  req: IncomingMessage,
  res: ServerResponse,
  csp: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end()
    return
  }
  const inside = fileInside(root, decodedPath)
  if (inside === null) {
    res.writeHead(404).end()
    return
  }
  let file = inside
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

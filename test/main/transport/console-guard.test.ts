import { request } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunningConsole } from '../../../src/main/serve'
import { useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'

/** Raw requests, so the Host header can be forged the way a DNS-rebinding page would. */
function get(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('serve mode guards its API', () => {
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  // One console for the file: every test here only reads (a request with a forged header or
  // token), so none needs a fresh one.
  const startConsole = useTestConsole({ per: 'file' })
  let c: RunningConsole
  beforeAll(async () => {
    c = await startConsole({ dataDir: tempDir() })
  })

  it('refuses /api/health without the token with 401', async () => {
    const answer = await get(c.port, '/api/health', { host: `127.0.0.1:${c.port}` })
    expect(answer.status).toBe(401)
    expect(JSON.parse(answer.body).error.message).toMatch(/launch token/)
  })

  it('refuses a wrong token of the same length with 401', async () => {
    const wrong = 'x'.repeat(c.token.length)
    const answer = await get(c.port, '/api/health', {
      host: `127.0.0.1:${c.port}`,
      authorization: `Bearer ${wrong}`,
    })
    expect(answer.status).toBe(401)
  })

  it('answers /api/health with the token with 200', async () => {
    const answer = await get(c.port, '/api/health', {
      host: `127.0.0.1:${c.port}`,
      authorization: `Bearer ${c.token}`,
    })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toMatchObject({ ok: true, value: { status: 'ok', shell: 'serve' } })
  })

  it('accepts localhost as the Host name too', async () => {
    const answer = await get(c.port, '/api/health', {
      host: `localhost:${c.port}`,
      authorization: `Bearer ${c.token}`,
    })
    expect(answer.status).toBe(200)
  })

  it('refuses a foreign Host with 403 even with the token (DNS rebinding)', async () => {
    const answer = await get(c.port, '/api/health', {
      host: `attacker.example:${c.port}`,
      authorization: `Bearer ${c.token}`,
    })
    expect(answer.status).toBe(403)
  })

  it('refuses a foreign Origin with 403 even with the token (cross-site)', async () => {
    const answer = await get(c.port, '/api/health', {
      host: `127.0.0.1:${c.port}`,
      origin: 'http://attacker.example',
      authorization: `Bearer ${c.token}`,
    })
    expect(answer.status).toBe(403)
  })

  it('refuses the page itself to a foreign Host', async () => {
    const answer = await get(c.port, '/', { host: 'attacker.example' })
    expect(answer.status).toBe(403)
  })

  it('serves the renderer without the token, with a CSP of self and no eval', async () => {
    const answer = await get(c.port, '/', { host: `127.0.0.1:${c.port}` })
    expect(answer.status).toBe(200)
    expect(answer.body).toContain('<div id="root">')
    const csp = String(answer.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline/)
  })

  it('does not serve files outside the renderer folder', async () => {
    const answer = await get(c.port, '/..%2f..%2fpackage.json', { host: `127.0.0.1:${c.port}` })
    expect(answer.status).toBe(404)
    expect(answer.body).not.toContain('"devDependencies"')
  })
})

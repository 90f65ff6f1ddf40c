import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { main } from '../../../src/main/cli/main'
import { terminalSafe } from '../../../src/shared/inert'
import type { CliIo } from '../../../src/main/cli/io'
import type { CliDeps } from '../../../src/main/cli/declare'
import { createMemoryStore } from '../../../src/main/secrets'
import { redact } from '../../../src/main/log'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { useRpcStandin } from '../../support/rpc-standin'
import { repoRoot } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

/** What a hostile peer puts in a field: a window title (OSC 0), a line erased and a fake one
 * printed after a newline, an 8-bit CSI (C1) and a right-to-left override. */
const hostile = 'x\x1b]0;pwned\x07\x1b[2K\r\nFAKE all good\u009b31m\u202etxt'

/** Every character a terminal acts on instead of showing, except the newline between lines. */
const rawControl =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/** What the process writes for a command run through main() here: each line through redaction
 * and the terminal guard, as `processIo` writes it (the one writer of stdout and stderr, below). */
async function printed(
  args: string[],
  env: NodeJS.ProcessEnv,
  deps: CliDeps = {},
): Promise<{ code: number; text: string }> {
  let text = ''
  const write = (line: string) => (text += `${terminalSafe(redact(line))}\n`)
  const io: CliIo = { out: write, err: write, env: { WATCHDESK_LOG_LEVEL: 'warn', ...env } }
  const code = await main(args, io, deps)
  return { code, text }
}

/** The text shows the hostile field escaped: no control acted on, no line of its own forged. */
function expectInert(what: string, text: string): void {
  const found = rawControl.exec(text)
  expect(found, `${what} holds a raw U+${found?.[0].charCodeAt(0).toString(16)}:\n${text}`).toBeNull()
  expect(text, `${what} prints the hostile text's second line as a line of its own`).not.toMatch(
    /^FAKE all good/m,
  )
}

/** The 3 a.m. trial: a control character or escape sequence in every field the command line prints
 * from a peer (the payments API, an RPC node). `events`, `listen` and `events replay` are in
 * inert-output.test.ts (real processes). */
describe('text from the payments API and RPC nodes is inert on the terminal', () => {
  const tempDir = useTempDir('watchdesk-inert-fields-')
  const standin = usePaymentsStandin()
  const rpc = useRpcStandin()

  it('no file of src/main writes stdout or stderr but through the command line’s io (the guard)', () => {
    const writers = /process\.(stdout|stderr)\.write|console\.(log|error|warn|info)\(/
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      )
    const writing = files(join(repoRoot, 'src', 'main'))
      .filter((f) => writers.test(readFileSync(f, 'utf8')))
      .map((f) => f.slice(repoRoot.length + 1))
    // io.ts is the guard; log.ts writes a service's log lines (the CLI gives its loggers io.err);
    // payments-common.ts writes only its own prompts (no peer's text).
    expect(writing.sort()).toEqual([
      'src/main/cli/io.ts',
      'src/main/cli/payments-common.ts',
      'src/main/log.ts',
    ])
  })

  it('wallets and webhooks list: every field of the answer', async () => {
    const key = 'sk_sandbox_inert_0a1b2c3d4e'
    const s = await standin({
      keys: { [key]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_a'] } },
      wallets: { biz_a: { wallets: [{ id: `wal_${hostile}`, currency: hostile, available: hostile }] } },
    })
    s.endpoints.set(`we_${hostile}`, {
      id: `we_${hostile}`,
      url: `https://example.com/${hostile}`,
      events: [hostile],
      description: hostile,
      status: hostile,
      secret: 'whsec_inert_0123456789',
      created_at: hostile,
      business: 'biz_a',
    })
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [{ id: 'biz_a', name: 'A' }],
        selectedBusinessId: 'biz_a',
      }),
    )
    const env = { WATCHDESK_API_KEY: key }
    for (const args of [
      ['wallets'],
      ['wallets', '--json'],
      ['webhooks', 'list'],
      ['webhooks', 'list', '--json'],
    ]) {
      const answer = await printed([...args, '--data-dir', dir], env)
      expect(answer.code, answer.text).toBe(0)
      expectInert(args.join(' '), answer.text)
      expect(answer.text).toContain('x\\')
    }
  })

  it('wallets: the payments API’s error text, quoted in the failure’s sentence', async () => {
    // A service that refuses every key with a hostile error text (and the same in its body).
    const api = createServer((_req, res) => {
      const body = { error: { type: 'authentication_error', code: 'invalid_api_key', message: hostile } }
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(body, null, 2))
    })
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()))
    onTestFinished(() => new Promise<void>((r) => api.close(() => r())))
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
        businesses: [{ id: 'biz_a', name: 'A' }],
        selectedBusinessId: 'biz_a',
      }),
    )
    const env = { WATCHDESK_API_KEY: 'sk_sandbox_inert_0a1b2c3d4e' }
    for (const args of [['wallets'], ['webhooks', 'list']]) {
      const answer = await printed([...args, '--data-dir', dir], env)
      expect(answer.code, answer.text).not.toBe(0)
      expectInert(args.join(' '), answer.text)
      // The sentence still quotes what the service said, escaped, and names the fix.
      expect(answer.text).toContain('x\\x1b]0;pwned\\x07')
      expect(answer.text).toMatch(/did not accept the key/)
    }
  })

  it('chains and chains --sources: an RPC node’s error text', async () => {
    const node = await rpc((body) => {
      const id = (body as { id?: unknown } | null)?.id ?? null
      return { body: { jsonrpc: '2.0', id, error: { code: -32000, message: hostile } } }
    })
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ chains: { '250': { url: node.url, timeoutMs: 2000 } } }),
    )
    for (const args of [
      ['chains'],
      ['chains', '--json'],
      ['chains', '--sources'],
      ['chains', '--sources', '--json'],
    ]) {
      const answer = await printed([...args, '--chain', '250', '--data-dir', dir], {})
      expect(answer.code, answer.text).toBe(1)
      expectInert(args.join(' '), answer.text)
      expect(answer.text).toContain('x\\')
    }
  })

  it('sources add and sources list: a relay’s error text', async () => {
    // The relay accepts the token once (add), then fails with a hostile text (list).
    let answered = 0
    const relay = createServer((_req, res) => {
      if (answered++ === 0)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"events":[],"remaining":0}')
      else res.writeHead(503, { 'content-type': 'text/plain' }).end(hostile)
    })
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()))
    onTestFinished(() => new Promise<void>((r) => relay.close(() => r())))
    const url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), '{}')
    const deps: CliDeps = { secrets: createMemoryStore(), readSecret: async () => 'tok_inert_0123456789' }
    const added = await printed(['sources', 'add', 'office', url, '--data-dir', dir], {}, deps)
    expect(added.code, added.text).toBe(0)
    for (const args of [
      ['sources', 'list'],
      ['sources', 'list', '--json'],
    ]) {
      const answer = await printed([...args, '--data-dir', dir], {}, deps)
      expect(answer.code, answer.text).toBe(0)
      expectInert(args.join(' '), answer.text)
      expect(answer.text).toContain('x\\')
    }
  })
})

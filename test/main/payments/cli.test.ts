import { keysCommand, walletsCommand, webhooksCommand } from '../../../src/main/cli/main'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../../src/main/cli/io'
import { useTestKeychain } from '../../support/keychain'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { useTempDir } from '../../support/temp'

const sandboxKey = 'sk_sandbox_cli_0a1b2c3d4e5f'
const liveKey = 'sk_live_cli_9z8y7x6w5v4u'
const narrowKey = 'sk_sandbox_cli_noscope_77aa'
const walletsOnlyKey = 'sk_sandbox_cli_wallets_5b6c'
/** A well-formed key the service does not know: refused with 401. */
const unknownKey = 'sk_sandbox_cli_revoked_0d0e'

function captureIo(dataDir: string): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = []
  const errors: string[] = []
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    env: { WATCHDESK_DATA_DIR: dataDir },
  }
}

describe('watchdesk keys, wallets, webhooks', () => {
  const tempDir = useTempDir()
  const keychain = useTestKeychain()
  const standin = usePaymentsStandin()

  async function setup() {
    const s = await standin({
      keys: {
        [sandboxKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_cli'] },
        [liveKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_cli'] },
        [narrowKey]: { scopes: ['webhooks:read'], limits: sandboxLimits, businesses: ['biz_cli'] },
        [walletsOnlyKey]: { scopes: ['wallets:read'], limits: sandboxLimits, businesses: ['biz_cli'] },
      },
      wallets: {
        biz_cli: {
          wallets: [
            { id: 'wal_a', currency: 'USDC', available: '1500000.25' },
            { id: 'wal_b', currency: 'EUR', available: '7' },
          ],
        },
      },
    })
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [{ id: 'biz_cli', name: 'CLI' }],
        selectedBusinessId: 'biz_cli',
      }),
    )
    return { s, dataDir, secrets: keychain() }
  }

  it('keys set reads the key from stdin into the keychain and keys list shows it masked', async () => {
    const { dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    expect(
      await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => `${sandboxKey}\n` }),
    ).toBe(0)
    expect(await secrets.get('api-key:main')).toEqual({ ok: true, value: sandboxKey })
    expect(await keysCommand(['list'], io, { secrets })).toBe(0)
    expect(io.lines.at(-1)!.split('\n')[1]).toMatch(
      /^\*\s+main\s+sk_sandbox_…4e5f\s+sandbox\s+keychain\s+sandbox \(inferred\)\s+100\s+20$/,
    )
    expect(io.lines.join('\n')).not.toContain(sandboxKey)
  })

  it('keys set tests the stored key: the businesses it reaches, or the scopes the service says are missing', async () => {
    const { s, dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    expect(await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => sandboxKey })).toBe(0)
    expect(io.lines.at(-1)).toBe(
      `tested: The key "main" works: GET ${s.url}/v1/wallets answered 200 for biz_cli.`,
    )
    const narrow = narrowKey
    io.lines.length = 0
    expect(await keysCommand(['set', 'narrow'], io, { secrets, readSecret: async () => narrow })).toBe(1)
    expect(io.lines[1]).toMatch(/^test failed: /)
    expect(io.lines.slice(2)).toEqual([
      'missing scopes: wallets:read, webhooks:write',
      '  Wallets: needs wallets:read',
      '  Connect this console, create and delete endpoints: needs webhooks:write',
    ])
    expect(io.lines.join('\n')).not.toContain(narrow)
  })

  it('keys set names the webhook scopes a wallets-only key lacks, and registers nothing while trying them', async () => {
    const { s, dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    expect(
      await keysCommand(['set', 'wallets'], io, { secrets, readSecret: async () => walletsOnlyKey }),
    ).toBe(1)
    expect(io.lines[1]).toBe(
      `tested: The key "wallets" works: GET ${s.url}/v1/wallets answered 200 for biz_cli.`,
    )
    expect(io.lines.slice(2)).toEqual([
      'missing scopes: webhooks:read, webhooks:write',
      '  Webhook endpoints (list, Clean up): needs webhooks:read',
      '  Connect this console, create and delete endpoints: needs webhooks:write',
    ])
    // Still stored: it works for wallets.
    expect(await secrets.get('api-key:wallets')).toEqual({ ok: true, value: walletsOnlyKey })
    expect(s.endpoints.size).toBe(0)
  })

  it('keys set does not keep a key the service refuses, unless --keep, which says how to remove it', async () => {
    const { dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    expect(await keysCommand(['set', 'old'], io, { secrets, readSecret: async () => unknownKey })).toBe(1)
    expect(io.errors.at(-1)).toMatch(
      /^watchdesk keys: The service at http:\/\/127\.0\.0\.1:\d+ refused the key "old" \(sk_sandbox_…0d0e\): it answered 401 \(authentication_error\) to GET \/v1\/wallets\. It was not stored\./,
    )
    expect(io.errors.at(-1)).toContain('to store it anyway: watchdesk keys set old --keep')
    expect(await secrets.get('api-key:old')).toEqual({ ok: true, value: null })
    io.lines.length = 0
    expect(await keysCommand(['list'], io, { secrets })).toBe(0)
    expect(io.lines.join('\n')).not.toContain('old')

    io.lines.length = 0
    expect(
      await keysCommand(['set', 'old', '--keep'], io, { secrets, readSecret: async () => unknownKey }),
    ).toBe(1)
    expect(io.lines).toContain(
      'kept although the service refused it (--keep); remove it with: watchdesk keys remove old',
    )
    expect(await secrets.get('api-key:old')).toEqual({ ok: true, value: unknownKey })
    expect([...io.lines, ...io.errors].join('\n')).not.toContain(unknownKey)
  })

  it('keys set refuses a key passed as an argument and one with an unknown prefix', async () => {
    const { dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    expect(
      await keysCommand(['set', 'main', sandboxKey], io, { secrets, readSecret: async () => sandboxKey }),
    ).toBe(2)
    expect(io.errors.join('\n')).toContain('not as an argument')
    expect(
      await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => 'rk_12345678901234' }),
    ).toBe(1)
    expect(io.errors.at(-1)).toContain('sk_sandbox_ (sandbox')
    expect(await secrets.get('api-key:main')).toEqual({ ok: true, value: null })
  })

  it('wallets prints the fields present with amounts right-aligned, and --json the raw answer', async () => {
    const { dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => sandboxKey })
    io.lines.length = 0
    expect(await walletsCommand([], io, { secrets })).toBe(0)
    expect(io.lines[0]).toBe('business biz_cli · 2 wallets')
    expect(io.lines[1]!.split('\n')).toEqual([
      'id     currency     available',
      'wal_a  USDC      1,500,000.25',
      'wal_b  EUR                  7',
    ])
    io.lines.length = 0
    expect(await walletsCommand(['--json'], io, { secrets })).toBe(0)
    expect(JSON.parse(io.lines[0]!)).toEqual({
      wallets: [
        { id: 'wal_a', currency: 'USDC', available: '1500000.25' },
        { id: 'wal_b', currency: 'EUR', available: '7' },
      ],
    })
  })

  it('webhooks create stores the secret without printing it, list shows it, delete removes it', async () => {
    const { s, dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => sandboxKey })
    expect(
      await webhooksCommand(
        [
          'create',
          '--url',
          'https://hooks.example.com/cli',
          '--events',
          'funding.completed,payout.failed',
          '--description',
          'ops',
        ],
        io,
        { secrets },
      ),
    ).toBe(0)
    const [endpoint] = [...s.endpoints.values()]
    expect(endpoint!.events).toEqual(['funding.completed', 'payout.failed'])
    expect(await secrets.get(`webhook-secret:${endpoint!.id}`)).toEqual({ ok: true, value: endpoint!.secret })
    expect(io.lines.join('\n')).toContain(`webhook-secret:${endpoint!.id}`)
    expect(io.lines.join('\n')).not.toContain(endpoint!.secret)
    expect(await webhooksCommand(['list'], io, { secrets })).toBe(0)
    expect(io.lines.at(-1)).toMatch(
      new RegExp(
        `${endpoint!.id}\\s+active\\s+https://hooks.example.com/cli\\s+funding.completed,payout.failed\\s+in keychain`,
      ),
    )
    expect(await webhooksCommand(['delete', endpoint!.id], io, { secrets })).toBe(0)
    expect(io.lines.at(-1)).toContain('removed its secret')
    expect(await secrets.get(`webhook-secret:${endpoint!.id}`)).toEqual({ ok: true, value: null })
  })

  it('webhooks create with a live key asks first, and does nothing without a yes', async () => {
    const { s, dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    await keysCommand(['set', 'live'], io, { secrets, readSecret: async () => liveKey })
    const args = ['create', '--url', 'https://hooks.example.com/live', '--events', 'card.created']
    const questions: string[] = []
    expect(
      await webhooksCommand(args, io, { secrets, confirm: async (q: string) => (questions.push(q), false) }),
    ).toBe(1)
    expect(questions[0]).toContain('LIVE')
    expect(io.errors.at(-1)).toBe('Cancelled')
    expect(await webhooksCommand(args, io, { secrets, confirm: async () => null })).toBe(1)
    expect(io.errors.at(-1)).toContain('--yes')
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
    expect(await webhooksCommand([...args, '--yes'], io, { secrets })).toBe(0)
    expect(s.endpoints.size).toBe(1)
  })

  it('webhooks create refuses an http:// url before sending', async () => {
    const { s, dataDir, secrets } = await setup()
    const io = captureIo(dataDir)
    await keysCommand(['set', 'main'], io, { secrets, readSecret: async () => sandboxKey })
    const sentBefore = s.requests.length // the key's own test when it was stored
    expect(
      await webhooksCommand(['create', '--url', 'http://hooks.example.com', '--events', 'card.created'], io, {
        secrets,
      }),
    ).toBe(1)
    expect(io.errors.at(-1)).toContain('HTTPS')
    expect(s.requests).toHaveLength(sentBefore)
  })
})

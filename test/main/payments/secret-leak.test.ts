import { keysCommand, walletsCommand, webhooksCommand } from '../../../src/main/cli/main'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../../src/main/cli/io'
import { createLogger } from '../../../src/main/log'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { useTempDir } from '../../support/temp'
import { selfSignedCert, useTunnel } from '../../support/tunnel'

const apiKey = 'sk_sandbox_leakcheck_5e0d9c8b7a6f'

describe('payments secrets never leak', () => {
  const tempDir = useTempDir()
  const keychain = useTestKeychain()
  const standin = usePaymentsStandin()
  const startConsole = useTestConsole()
  const tunnel = useTunnel()

  it('the API key and webhook secrets land in the real keychain and never in SQLite, a log line, the CLI output or any other API answer', async () => {
    const s = await standin({
      keys: { [apiKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_leak'] } },
      wallets: { biz_leak: [{ id: 'wal_1', currency: 'EUR', amount: '10.00' }] },
    })
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ apiBaseUrl: s.url }))
    const secrets = keychain()
    const logLines: string[] = []
    const certDir = tempDir()
    const c = await startConsole({
      dataDir,
      secrets,
      log: createLogger((l) => logLines.push(l), 'debug'),
      env: { NODE_EXTRA_CA_CERTS: selfSignedCert(certDir).certFile },
    })
    const proxy = await tunnel(certDir, c.backend.services.webhooks.address().url!)
    const answers: string[] = []
    const call = async (method: string, body: unknown = {}) => {
      const r = await callApi(c, method, body)
      answers.push(JSON.stringify(r.json))
      return r.json
    }

    // Every path a secret takes: stored key, every call, create (the one shown-once answer), connect, list, delete.
    expect((await call('payments.keys.set', { name: 'main', key: apiKey })).ok).toBe(true)
    expect((await call('payments.wallets.list')).ok).toBe(true)
    const created = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/a',
      events: ['funding.completed'],
    })
    const createdSecret: string = created.json.value.secretShownOnce
    const connected = await callApi(c, 'payments.webhooks.connect', {
      publicUrl: `${proxy.url}/webhooks`,
      events: ['report.ready'],
    })
    expect(connected.json.value.test.arrivedAt).not.toBeNull()
    const connectSecret: string = connected.json.value.secretShownOnce
    await call('payments.webhooks.list')
    await call('payments.status')
    const toDelete = (
      await callApi(c, 'payments.webhooks.create', {
        url: 'https://hooks.example.com/b',
        events: ['card.frozen'],
      })
    ).json.value
    await call('payments.webhooks.delete', { id: toDelete.endpoint.id })
    await call('settings.get')
    // A failure answer whose body echoes the key.
    s.forceStatus(400, { error: { message: `bad key ${apiKey}` } })
    const echoed = await call('payments.wallets.list')
    expect(echoed.ok).toBe(false)
    s.forceStatus(null)

    expect(await secrets.get('api-key:main')).toEqual({ ok: true, value: apiKey })
    expect(await secrets.get(`webhook-secret:${created.json.value.endpoint.id}`)).toEqual({
      ok: true,
      value: createdSecret,
    })
    expect(await secrets.get(`webhook-secret:${connected.json.value.endpoint.id}`)).toEqual({
      ok: true,
      value: connectSecret,
    })

    // The command line against the same data dir and keychain.
    const out: string[] = []
    // No redaction here (processIo redacts as a last guard): this proves the commands never print a secret.
    const io: CliIo = {
      out: (l) => out.push(l),
      err: (l) => out.push(l),
      env: { WATCHDESK_DATA_DIR: dataDir },
    }
    const cli = { secrets, readSecret: async () => apiKey }
    expect(await keysCommand(['list'], io, cli)).toBe(0)
    expect(await keysCommand(['list', '--json'], io, cli)).toBe(0)
    expect(await walletsCommand(['--json'], io, cli)).toBe(0)
    expect(await webhooksCommand(['list', '--json'], io, cli)).toBe(0)
    expect(
      await webhooksCommand(
        ['create', '--url', 'https://hooks.example.com/c', '--events', 'payout.failed', '--json'],
        io,
        cli,
      ),
    ).toBe(0)
    const cliSecret = [...s.endpoints.values()].find((e) => e.url === 'https://hooks.example.com/c')!.secret
    expect(await keysCommand(['set', 'again'], io, cli)).toBe(0)
    await c.close()

    const all = [apiKey, createdSecret, connectSecret, cliSecret, toDelete.secretShownOnce as string]
    const dbFiles = ['watchdesk.db', 'watchdesk.db-wal', 'watchdesk.db-shm']
      .map((f) => join(dataDir, f))
      .filter(existsSync)
    expect(dbFiles).toContain(join(dataDir, 'watchdesk.db'))
    const dbBytes = Buffer.concat(dbFiles.map((f) => readFileSync(f)))
    const config = readFileSync(join(dataDir, 'config.json'), 'utf8')
    for (const secret of all) {
      // Each is a whole secret as issued, not a masked or empty stand-in.
      expect(secret).toMatch(/^(sk_sandbox_|whsec_)[A-Za-z0-9_]{16,}$/)
      expect(dbBytes.includes(Buffer.from(secret)), 'secret in SQLite').toBe(false)
      expect(
        logLines.filter((l) => l.includes(secret)),
        'secret in the log',
      ).toEqual([])
      expect(
        out.filter((l) => l.includes(secret)),
        'secret in CLI output',
      ).toEqual([])
      expect(
        answers.filter((a) => a.includes(secret)),
        'secret in an API answer',
      ).toEqual([])
      expect(config.includes(secret), 'secret in config.json').toBe(false)
    }
    // The masked forms did go out, so the searches above looked at real output.
    expect(out.join('\n')).toContain(`sk_sandbox_…${apiKey.slice(-4)}`)
    expect(logLines.some((l) => l.includes('webhook endpoint created'))).toBe(true)
    expect(echoed.error.message).toContain(`sk_sandbox_…${apiKey.slice(-4)}`)
  })
})

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { main, sourcesCommand } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { silentLogger } from '../../../src/main/log'
import { openSqliteRelayStore, startRelay } from '../../../src/main/relay'
import { createMemoryStore, observeSecrets } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { deliver, relaySecret } from './helpers'

function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = []
  const errors: string[] = []
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), env: {} }
}

describe('the relay and sources command line', () => {
  const tempDir = useTempDir('watchdesk-relay-cli-')
  const stops: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop()
  })

  it('creates a token once, lists it, and revokes it in a SQLite relay store', async () => {
    const store = `sqlite:${join(tempDir(), 'relay.db')}`
    const created = captureIo()
    expect(await main(['relay', 'token', 'create', 'laptop', '--store', store], created)).toBe(0)
    expect(created.lines).toHaveLength(1)
    expect(created.lines[0]).toMatch(/^wdr_[A-Za-z0-9_-]{32}$/)
    expect(created.errors.join('\n')).toMatch(/shown once/)
    expect(await main(['relay', 'token', 'create', 'laptop', '--store', store], captureIo())).toBe(1)

    const listed = captureIo()
    expect(await main(['relay', 'token', 'list', '--json', '--store', store], listed)).toBe(0)
    expect(listed.lines.map((l) => JSON.parse(l))).toMatchObject([{ name: 'laptop', revokedAt: null }])
    expect(listed.lines.join('')).not.toContain(created.lines[0]!)

    expect(await main(['relay', 'token', 'revoke', 'laptop', '--store', store], captureIo())).toBe(0)
    const after = captureIo()
    await main(['relay', 'token', 'list', '--json', '--store', store], after)
    expect(JSON.parse(after.lines[0]!).revokedAt).toEqual(expect.any(Number))
    expect(await main(['relay', 'token', 'revoke', 'laptop', '--store', store], captureIo())).toBe(1)
    expect(await main(['relay', '--store', 'mysql://nope'], captureIo())).toBe(2)

    const migrated = captureIo()
    expect(await main(['relay', 'migrate', '--store', store], migrated)).toBe(0)
    expect(migrated.lines).toEqual([`${store} is at the current schema`])

    const scoped = captureIo()
    expect(
      await main(['relay', 'token', 'create', 'prometheus', '--scope', 'metrics', '--store', store], scoped),
    ).toBe(0)
    expect(scoped.errors.join('\n')).toMatch(/scope metrics/)
    const bogus = captureIo()
    expect(
      await main(['relay', 'token', 'create', 'x', '--scope', 'everything', '--store', store], bogus),
    ).toBe(2)
    expect(bogus.errors.join('\n')).toMatch(/--scope takes read, metrics, admin/)
    const withScopes = captureIo()
    await main(['relay', 'token', 'list', '--json', '--store', store], withScopes)
    expect(withScopes.lines.map((l) => JSON.parse(l)).map((t) => [t.name, t.scope])).toEqual([
      ['laptop', 'read'],
      ['prometheus', 'metrics'],
    ])
  })

  it('adds, lists and removes a source with the token from stdin, never from the arguments', async () => {
    const file = join(tempDir(), 'relay.db')
    const store = unwrap(openSqliteRelayStore(file))
    const relay = unwrap(
      await startRelay({
        store,
        secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_relay': relaySecret })),
        log: silentLogger,
        listener: { host: '127.0.0.1', port: 0 },
        sync: { host: '127.0.0.1', port: 0 },
      }),
    )
    stops.push(
      () => store.close(),
      () => relay.stop(),
    )
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_cli_1')).toBe(200)
    const tokenIo = captureIo()
    await main(['relay', 'token', 'create', 'console', '--store', `sqlite:${file}`], tokenIo)
    const token = tokenIo.lines[0]!

    const dataDir = tempDir()
    const secrets = createMemoryStore()
    const deps = { secrets, readSecret: async () => token }
    const io = { ...captureIo(), env: { WATCHDESK_DATA_DIR: dataDir } }
    expect(await sourcesCommand(['add', 'office', relay.syncUrl, token], io, deps)).toBe(2)
    expect(io.errors.join('\n')).toMatch(/not from the command line/)
    expect(await sourcesCommand(['add', 'office', relay.syncUrl], io, deps)).toBe(0)
    expect(io.lines.join('\n')).toMatch(/holds 1 events/)
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).sources).toEqual({
      office: { url: relay.syncUrl },
    })
    expect(unwrap(await secrets.get('source-token:office'))).toBe(token)
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).not.toContain(token)

    const listed = { ...captureIo(), env: { WATCHDESK_DATA_DIR: dataDir } }
    expect(await sourcesCommand(['list', '--json'], listed, deps)).toBe(0)
    expect(listed.lines.map((l) => JSON.parse(l))).toEqual([
      {
        name: 'office',
        url: relay.syncUrl,
        enabled: true,
        state: 'reachable',
        problem: null,
        tokenStored: true,
        cursor: null,
        // The relay holds the one event, and this console has synced nothing yet.
        behind: 1,
      },
    ])
    const table = { ...captureIo(), env: { WATCHDESK_DATA_DIR: dataDir } }
    expect(await sourcesCommand(['list'], table, deps)).toBe(0)
    expect(table.lines.join('\n')).toMatch(/^office +reachable .* +not synced yet +1 to sync$/m)
    expect(await sourcesCommand(['remove', 'office'], io, deps)).toBe(0)
    expect(unwrap(await secrets.get('source-token:office'))).toBeNull()
    expect(await sourcesCommand(['remove', 'office'], io, deps)).toBe(1)

    const events = captureIo()
    expect(await main(['events', '--store', `sqlite:${file}`, '--json'], events)).toBe(0)
    expect(events.lines.map((l) => JSON.parse(l).id)).toEqual(['evt_cli_1'])
  })
})

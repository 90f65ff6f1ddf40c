import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleartextWarning } from '../../../src/main/cli/sources'
import { exposureWarnings } from '../../../src/main/relay'
import { useRelayProcesses } from '../../support/relay-process'
import { runMain } from '../../support/cli'
import { useTempDir } from '../../support/temp'
import { relaySecret, useRelays } from './helpers'

describe('a relay or source reachable in clear text', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-exposure-')

  it('is warned about when the relay binds beyond loopback without TLS, and only then', () => {
    expect(exposureWarnings('0.0.0.0', false)).toEqual([
      expect.stringMatching(
        /^The relay listens on 0\.0\.0\.0 without TLS: relay tokens and events cross the network unencrypted/,
      ),
    ])
    expect(exposureWarnings('10.1.2.3', false)).toHaveLength(1)
    expect(exposureWarnings('::', false)).toHaveLength(1)
    expect(exposureWarnings('0.0.0.0', true)).toEqual([])
    for (const loopback of ['127.0.0.1', '127.0.0.2', 'localhost', '::1'])
      expect(exposureWarnings(loopback, false)).toEqual([])
  })

  it('is warned about for an http:// source that is not on this machine', () => {
    expect(cleartextWarning('http://relay.example.com:7422')).toMatch(
      /^relay\.example\.com:7422 is reached over plain http:\/\/: the relay token and every event cross the network unencrypted/,
    )
    expect(cleartextWarning('https://relay.example.com')).toBeNull()
    expect(cleartextWarning('http://127.0.0.1:7422')).toBeNull()
    expect(cleartextWarning('http://localhost:7422')).toBeNull()
  })

  it('shows no warning in /healthz of a loopback relay, and says the storage state', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    expect(relay.warnings).toEqual([])
    const health = await fetch(`${relay.syncUrl}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({
      ok: true,
      storage: 'ok',
      cause: null,
      fix: null,
      warnings: [],
      wakeups: expect.objectContaining({ mode: 'in-process' }),
    })
  })
})

describe('the relay command reading sync.* from config.json', () => {
  const tempDir = useTempDir('watchdesk-relay-config-')
  const spawn = useRelayProcesses()

  it('applies sync.maxStreams.perToken from the data dir: the second stream of a token gets 429', async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ sync: { maxStreams: { perToken: 1 } } }))
    const store = `sqlite:${join(dataDir, 'relay.db')}`
    // The token through the command's main() in this process: the relay below is the process.
    const created = await runMain(['relay', 'token', 'create', 'solo', '--store', store])
    expect(created.code).toBe(0)
    const token = created.stdout.trim()
    const relay = await spawn(store, { WATCHDESK_DATA_DIR: dataDir, WATCHDESK_WEBHOOK_SECRETS: relaySecret })
      .ready
    const headers = { authorization: `Bearer ${token}` }
    const first = new AbortController()
    const one = await fetch(`${relay.sync}/sync/stream?after=0`, { headers, signal: first.signal })
    expect(one.status).toBe(200)
    const two = await fetch(`${relay.sync}/sync/stream?after=0`, { headers })
    expect(two.status).toBe(429)
    expect(two.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(((await two.json()) as { error: string }).error).toMatch(/sync\.maxStreams\.perToken/)
    first.abort()
  })
})

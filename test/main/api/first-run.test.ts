import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { firstRunChecks } from '../../../src/main/api/first-run'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { Config } from '../../../src/shared/config'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { useTempDir } from '../../support/temp'
import { occupyPort } from '../../support/ports'

const byId = (checks: { id: string }[]) =>
  Object.fromEntries(checks.map((c) => [c.id, c])) as Record<string, any>

describe('first-run checklist (app.firstRun)', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const keychain = useTestKeychain()

  it('on a fresh install: keychain and listener fine, node access and API key missing, each with its fix', async () => {
    const running = await startConsole({ dataDir: tempDir(), secrets: keychain() })
    const answer = await callApi(running, 'app.firstRun')
    expect(answer.status).toBe(200)
    const checks = byId(answer.json.value.checks)
    expect(answer.json.value.complete).toBe(false)
    expect(checks.keychain).toMatchObject({ state: 'ok', fix: null })
    expect(checks.listener).toMatchObject({
      state: 'ok',
      detail: `listening on ${running.backend.services.webhooks.address().url}/webhooks`,
    })
    expect(checks['node-access']).toMatchObject({
      state: 'missing',
      detail: 'Chains cannot be polled: no rpcBaseUrl and no project uid.',
    })
    expect(checks['node-access'].fix).toMatch(/rpcBaseUrl.*project-uid.*WATCHDESK_PROJECT_UID/)
    expect(checks['api-key']).toMatchObject({ state: 'missing' })
    expect(checks['api-key'].fix).toMatch(/watchdesk keys set main/)
  })

  it('is complete once rpcBaseUrl, the project uid and an API key are there, and never returns a secret', async () => {
    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(configFile, JSON.stringify({ rpcBaseUrl: 'https://rpc.example.test' }))
    const store = keychain()
    await store.set('project-uid', 'puid-7b1c0de5ecre7')
    await store.set('api-key:main', 'sk_sandbox_51HqA9Kf0aB7sEcReTvAlUe')
    const running = await startConsole({ dataDir: dir, secrets: store, configFile })
    const answer = await callApi(running, 'app.firstRun')
    expect(answer.json.value.complete).toBe(true)
    expect(answer.json.value.checks.map((c: any) => c.state)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(byId(answer.json.value.checks)['api-key'].detail).toBe('key: main')
    const text = JSON.stringify(answer.json)
    expect(text).not.toContain('puid-7b1c0de5ecre7')
    expect(text).not.toContain('sk_sandbox_51HqA9Kf0aB7sEcReTvAlUe')
  })

  it('says the listener port is taken by another program, and how to find it', async () => {
    const squatter = await occupyPort()
    const { port } = squatter
    try {
      const config = Config.parse({ listener: { port } })
      const checks = byId(
        await firstRunChecks({
          secrets: { ...createMemoryStore(), onChange: () => () => {} },
          listener: () => ({ url: null, problem: null }),
          config: () => config,
          log: silentLogger,
        }),
      )
      expect(checks.listener).toMatchObject({
        state: 'missing',
        detail: `127.0.0.1:${port} is in use by another program, so webhooks cannot be received.`,
      })
      expect(checks.listener.fix).toContain(`lsof -i :${port}`)
    } finally {
      squatter.close()
    }
  })

  it('names the port the listener could not bind (--listener-port included), the cause and the fix', async () => {
    const squatter = await occupyPort()
    const { port } = squatter
    try {
      // The config says 7421; the listener was told otherwise and met the taken port.
      const running = await startConsole({ dataDir: tempDir(), secrets: keychain(), listenerPort: port })
      const answer = await callApi(running, 'app.firstRun')
      expect(answer.status).toBe(200)
      const { listener } = byId(answer.json.value.checks)
      expect(listener).toMatchObject({
        state: 'missing',
        detail: `Port ${port} on 127.0.0.1 is in use (another watchdesk?). Webhooks are not received until the listener runs.`,
      })
      expect(listener.fix).toContain(
        'Stop it, or set listener.port / --listener-port, then restart watchdesk.',
      )
      expect(listener.fix).toContain(`lsof -i :${port}`)
      expect((await callApi(running, 'settings.get')).json.value.listenerProblem).toContain(`Port ${port}`)
    } finally {
      squatter.close()
    }
  })

  it('says the listener is not running when its port is free, naming the log file to read', async () => {
    const probe = createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    const port = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    const config = Config.parse({ listener: { port } })
    const checks = byId(
      await firstRunChecks({
        secrets: { ...createMemoryStore(), onChange: () => () => {} },
        listener: () => ({ url: null, problem: null }),
        config: () => config,
        log: { ...silentLogger, file: '/home/op/.local/share/watchdesk/watchdesk.log' },
      }),
    )
    expect(checks.listener).toMatchObject({
      state: 'missing',
      fix: 'Restart watchdesk to start the listener; the log (/home/op/.local/share/watchdesk/watchdesk.log) says why it stopped.',
    })
  })

  it('names the keychain problem and its fix once; the items it blocks say "blocked by: keychain"', async () => {
    const unreachable = {
      ...createMemoryStore(),
      onChange: () => () => {},
      status: async () => ({
        reachable: false,
        backend: 'keychain' as const,
        message: 'The OS keychain is not reachable: no Secret Service on D-Bus.',
      }),
      list: async () => ({
        ok: false as const,
        error: { code: 'unavailable' as const, message: 'no Secret Service on D-Bus' },
      }),
    }
    const checks = byId(
      await firstRunChecks({
        secrets: unreachable as any,
        listener: () => ({ url: 'http://127.0.0.1:1', problem: null }),
        config: () => Config.parse({}),
        log: silentLogger,
      }),
    )
    expect(checks.keychain).toMatchObject({
      state: 'missing',
      detail: 'The OS keychain is not reachable: no Secret Service on D-Bus.',
    })
    expect(checks.keychain.fix).toMatch(/gnome-keyring/)
    expect(checks.keychain.blockedBy).toBeNull()
    expect(checks['api-key']).toMatchObject({
      state: 'missing',
      detail: 'blocked by: keychain',
      fix: null,
      blockedBy: 'keychain',
    })
  })
})

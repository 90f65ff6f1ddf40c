import { keysCommand } from '../../../src/main/cli/main'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../../src/main/cli/io'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const readSaved = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))

const quietIo = (dataDir: string): CliIo => ({
  out: () => {},
  err: () => {},
  env: { WATCHDESK_DATA_DIR: dataDir },
})
const businesses = { businesses: [{ id: 'biz_one', name: 'One' }], selectedBusinessId: 'biz_one' }

describe('one writer for config.json while the console runs', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const keychain = useTestKeychain()

  it('a hand edit, then a change saved from the console: the hand edit is kept', async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ pollIntervalMs: 3000 }))
    const c = await startConsole({ dataDir })
    // The operator edits the file by hand; the console saves a change right after.
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ pollIntervalMs: 3000, rpcBaseUrl: 'https://rpc.example' }),
    )
    expect((await callApi(c, 'payments.businesses.set', businesses)).status).toBe(200)
    expect(readSaved(dataDir)).toEqual({
      pollIntervalMs: 3000,
      rpcBaseUrl: 'https://rpc.example',
      ...businesses,
    })
    expect(statSync(join(dataDir, 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('"keys select" from the command line, then a change saved from the console: the selection is kept', async () => {
    const dataDir = tempDir()
    const secrets = keychain()
    await secrets.set('api-key:first', 'sk_sandbox_first_0a1b2c3d')
    await secrets.set('api-key:second', 'sk_sandbox_second_4e5f6a7b')
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ apiKeyName: 'first' }))
    const c = await startConsole({ dataDir, secrets })
    expect(await keysCommand(['select', 'second'], quietIo(dataDir), { secrets })).toBe(0)
    expect((await callApi(c, 'payments.businesses.set', businesses)).status).toBe(200)
    expect(readSaved(dataDir).apiKeyName).toBe('second')
    const status = await waitFor(async () => {
      const s = (await callApi(c, 'payments.status')).json.value
      return s.activeKey?.name === 'second' && s
    }, 'the console to use the selected key')
    expect(status.activeKey.name).toBe('second')
  })

  it('an edit of config.json is applied live by the running console', async () => {
    const dataDir = tempDir()
    const c = await startConsole({ dataDir })
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ pollIntervalMs: 4321 }))
    const settings = await waitFor(async () => {
      const s = (await callApi(c, 'settings.get')).json.value
      return s.config.pollIntervalMs === 4321 && s
    }, 'the edit to be applied')
    expect(settings.configStatus).toMatchObject({ problem: null, restartRequired: [] })
  })

  it('an invalid edit keeps the last good config and is reported with the key', async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ pollIntervalMs: 3000 }))
    const c = await startConsole({ dataDir })
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ pollIntervalMs: 3000, listener: { port: 'x' } }),
    )
    const status = await waitFor(async () => {
      const s = (await callApi(c, 'app.configStatus')).json.value
      return s.problem && s
    }, 'the problem')
    expect(status.problem).toMatch(/listener\.port/)
    expect((await callApi(c, 'settings.get')).json.value.config.pollIntervalMs).toBe(3000)
  })

  it('a change that needs a restart (listener address) is reported as such', async () => {
    const dataDir = tempDir()
    const c = await startConsole({ dataDir })
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ listener: { host: '127.0.0.2' } }))
    const status = await waitFor(async () => {
      const s = (await callApi(c, 'settings.get')).json.value.configStatus
      return s.restartRequired.length > 0 && s
    }, 'restart required')
    expect(status.restartRequired).toEqual(['listener.host'])
    expect((await callApi(c, 'app.configStatus')).json.value.restartRequired).toEqual(['listener.host'])
  })

  it('publishes its actual addresses in runtime.json (0600, no token) and removes it on stop', async () => {
    const dataDir = tempDir()
    const c = await startConsole({ dataDir })
    const file = join(dataDir, 'runtime.json')
    const info = JSON.parse(readFileSync(file, 'utf8'))
    expect(info).toMatchObject({
      pid: process.pid,
      consoleUrl: c.url,
      listenerUrl: c.backend.services.webhooks.address().url,
    })
    expect(info.listenerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(readFileSync(file, 'utf8')).not.toContain(c.token)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await c.close()
    expect(existsSync(file)).toBe(false)
  })
})

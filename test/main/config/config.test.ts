import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultDataDir, loadConfig, openConfigStore, resolveDataDir } from '../../../src/main/config'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

describe('configuration', () => {
  const tempDir = useTempDir()

  it('gives the defaults when the data dir has no config.json', () => {
    const { config } = unwrap(loadConfig(tempDir()))
    expect(config.pollIntervalMs).toBe(5000)
    expect(config.listener).toMatchObject({ host: '127.0.0.1', port: 7421, maxBodyBytes: 1024 * 1024 })
  })

  it('lays --config over the saved config, key by key', () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        rpcBaseUrl: 'https://rpc.example',
        chains: { '1': { slug: 'eth' }, '56': { slug: 'bsc' } },
      }),
    )
    const overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ chains: { '1': { enabled: false } }, listener: { port: 9000 } }))
    const { config, overlayFile } = unwrap(loadConfig(dir, overlay))
    expect(config.rpcBaseUrl).toBe('https://rpc.example')
    expect(config.chains['1']).toEqual({ slug: 'eth', enabled: false })
    expect(config.chains['56']).toEqual({ slug: 'bsc' })
    expect(config.listener.port).toBe(9000)
    expect(overlayFile).toBe(overlay)
  })

  it('names the file and the key when a value is wrong', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ listener: { port: 'seventy' } }))
    const loaded = loadConfig(dir)
    expect(loaded.ok).toBe(false)
    if (!loaded.ok) expect(loaded.error.message).toMatch(/config\.json.*listener\.port/s)
  })

  it('names a typo in a key instead of ignoring it', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ pollIntervallMs: 1000 }))
    const loaded = loadConfig(dir)
    expect(loaded.ok).toBe(false)
    if (!loaded.ok) expect(loaded.error.message).toMatch(/pollIntervallMs/)
  })

  it('reads an older config.json with notifications.eventTypes as alerts.eventTypes', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ notifications: { eventTypes: ['card.*'] } }))
    const { config, saved } = unwrap(loadConfig(dir))
    expect(config.alerts.eventTypes).toEqual(['card.*'])
    expect('notifications' in config).toBe(false)
    // The file is not rewritten behind the operator's back.
    expect(saved).toEqual({ notifications: { eventTypes: ['card.*'] } })
  })

  it('keeps alerts.eventTypes when an older notifications.eventTypes is there too', () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        notifications: { eventTypes: ['card.*'] },
        alerts: { eventTypes: ['payout.failed'], repeatMinutes: 5 },
      }),
    )
    const { config } = unwrap(loadConfig(dir))
    expect(config.alerts).toMatchObject({ eventTypes: ['payout.failed'], repeatMinutes: 5 })
  })

  it('still names any other key under notifications as unknown', () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ notifications: { eventTypes: ['card.*'], sound: true } }),
    )
    const loaded = loadConfig(dir)
    expect(loaded.ok).toBe(false)
    if (!loaded.ok) expect(loaded.error.message).toMatch(/Unrecognized key: "notifications"/)
  })

  it('says when the file is not JSON', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), '{ "apiBaseUrl": ')
    const loaded = loadConfig(dir)
    expect(loaded.ok).toBe(false)
    if (!loaded.ok) expect(loaded.error.message).toMatch(/not valid JSON/)
  })

  it('says when the --config file does not exist', () => {
    const loaded = loadConfig(tempDir(), '/nonexistent/watchdesk.json')
    expect(loaded.ok).toBe(false)
    if (!loaded.ok) expect(loaded.error.message).toMatch(/does not exist.*--config/)
  })

  it('refuses to save an invalid config and keeps the old file', async () => {
    const dir = tempDir()
    const store = unwrap(openConfigStore({ dataDir: dir }))
    unwrap(await store.set('pollIntervalMs', 2000))
    expect((await store.set('pollIntervalMs', -1)).ok).toBe(false)
    expect(unwrap(loadConfig(dir)).config.pollIntervalMs).toBe(2000)
  })

  it('follows the OS convention for the data dir, and --data-dir over WATCHDESK_DATA_DIR', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/x/data' }, 'linux')).toBe('/x/data/watchdesk')
    const windows = {
      APPDATA: 'C:\\Users\\op\\AppData\\Roaming',
      LOCALAPPDATA: 'C:\\Users\\op\\AppData\\Local',
    }
    expect(defaultDataDir(windows, 'win32')).toMatch(/Local.watchdesk$/)
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/watchdesk$/)
    const dir = tempDir()
    mkdirSync(join(dir, 'a'))
    expect(resolveDataDir(join(dir, 'a'), { WATCHDESK_DATA_DIR: '/elsewhere' })).toBe(join(dir, 'a'))
    expect(resolveDataDir(undefined, { WATCHDESK_DATA_DIR: '/elsewhere' })).toBe('/elsewhere')
  })
})

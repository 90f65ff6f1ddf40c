import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openConfigStore, listenerRestartKeys } from '../../../src/main/config'
import type { ConfigStore } from '../../../src/main/config'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const fileOf = (dir: string) => join(dir, 'config.json')
const readSaved = (dir: string) => JSON.parse(readFileSync(fileOf(dir), 'utf8')) as Record<string, unknown>

describe('the configuration writer', () => {
  const tempDir = useTempDir()
  const stores: ConfigStore[] = []
  afterEach(() => stores.splice(0).forEach((s) => s.close()))
  const open = (dir: string, extra: Partial<Parameters<typeof openConfigStore>[0]> = {}) => {
    const store = unwrap(openConfigStore({ dataDir: dir, debounceMs: 20, pollMs: 200, ...extra }))
    stores.push(store)
    return store
  }

  it('applies a change made on a stale copy onto the file as it is now (a hand edit survives)', async () => {
    const dir = tempDir()
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 3000 }))
    const store = open(dir)
    const stale = store.current().saved
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 3000, rpcBaseUrl: 'https://rpc.example' }))
    unwrap(await store.replace({ ...stale, apiKeyName: 'main' }))
    expect(readSaved(dir)).toEqual({
      pollIntervalMs: 3000,
      rpcBaseUrl: 'https://rpc.example',
      apiKeyName: 'main',
    })
    expect(store.current().config.rpcBaseUrl).toBe('https://rpc.example')
  })

  it('re-reads and re-applies when an editor saves between the read and the rename', async () => {
    const dir = tempDir()
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 3000 }))
    const store = open(dir)
    let calls = 0
    unwrap(
      await store.update((saved) => {
        calls++
        // The editor writes while this change is being prepared (only the first time).
        if (calls === 1) writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 4000 }))
        saved.apiKeyName = 'main'
      }),
    )
    expect(calls).toBe(2)
    expect(readSaved(dir)).toEqual({ pollIntervalMs: 4000, apiKeyName: 'main' })
  })

  it('two writers in different stores (the console and the CLI) lose nothing', async () => {
    const dir = tempDir()
    const a = open(dir)
    const b = open(dir)
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => a.set(`chains.${i + 1}.slug`, `a${i}`)),
      ...Array.from({ length: 10 }, (_, i) => b.set(`chains.${i + 101}.enabled`, false)),
    ]).then((all) => all.forEach((r) => unwrap(r)))
    const saved = readSaved(dir) as { chains: object }
    expect(Object.keys(saved.chains)).toHaveLength(20)
  }, 20_000)

  it('writes 0600 through a temp file in the same folder and leaves no temp or lock behind', async () => {
    const dir = tempDir()
    const store = open(dir)
    unwrap(await store.set('pollIntervalMs', 1500))
    expect(statSync(fileOf(dir)).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).sort()).toEqual(['config.json'])
  })

  it('refuses a change that the schema rejects, naming the key, and keeps the file', async () => {
    const dir = tempDir()
    const store = open(dir)
    unwrap(await store.set('listener.port', 7500))
    const bad = await store.set('listener.port', 'seventy')
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error.message).toMatch(/listener\.port/)
    expect(readSaved(dir)).toEqual({ listener: { port: 7500 } })
  })

  it('does not overwrite a hand edit that is not JSON', async () => {
    const dir = tempDir()
    const store = open(dir)
    writeFileSync(fileOf(dir), '{ "pollIntervalMs": ')
    const saved = await store.set('apiKeyName', 'main')
    expect(saved.ok).toBe(false)
    if (!saved.ok) expect(saved.error.message).toMatch(/not valid JSON.*not overwritten/)
    expect(readFileSync(fileOf(dir), 'utf8')).toBe('{ "pollIntervalMs": ')
  })

  it('unset removes a dotted key and the objects it leaves empty', async () => {
    const dir = tempDir()
    const store = open(dir)
    unwrap(await store.set('chains.1.slug', 'eth'))
    expect(unwrap(await store.unset('chains.1.slug')).removed).toBe(true)
    expect(readSaved(dir)).toEqual({})
    expect(unwrap(await store.unset('chains.1.slug')).removed).toBe(false)
  })

  it('follows an editor that replaces the file by rename, and tells subscribers', async () => {
    const dir = tempDir()
    const store = open(dir)
    const seen: number[] = []
    store.onChange((loaded, origin) => origin === 'file' && seen.push(loaded.config.pollIntervalMs))
    store.watch()
    writeFileSync(join(dir, 'config.json.swp'), JSON.stringify({ pollIntervalMs: 2500 }))
    const { renameSync } = await import('node:fs')
    renameSync(join(dir, 'config.json.swp'), fileOf(dir))
    await waitFor(() => seen.length > 0, 'the edit to be applied')
    expect(seen).toEqual([2500])
    expect(store.status().problem).toBeNull()
  })

  it('keeps the last good config when an edit is invalid, and names the key in the problem', async () => {
    const dir = tempDir()
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 2500 }))
    const store = open(dir)
    store.watch()
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 'fast' }))
    const problem = await waitFor(() => store.status().problem, 'the problem')
    expect(problem).toMatch(/pollIntervalMs.*last valid configuration stays in use/s)
    expect(store.current().config.pollIntervalMs).toBe(2500)
    writeFileSync(fileOf(dir), JSON.stringify({ pollIntervalMs: 2600 }))
    await waitFor(() => store.current().config.pollIntervalMs === 2600, 'the fixed edit')
    expect(store.status().problem).toBeNull()
  })

  it('lists the listener keys changed since start as needing a restart, unless pinned by a flag', async () => {
    const dir = tempDir()
    const store = open(dir, { restartKeys: listenerRestartKeys })
    unwrap(await store.set('listener.port', 7600))
    unwrap(await store.set('listener.tls', { certFile: '/c.pem', keyFile: '/k.pem' }))
    unwrap(await store.set('pollIntervalMs', 900))
    expect(store.status().restartRequired).toEqual(['listener.port', 'listener.tls'])
    unwrap(await store.unset('listener.port'))
    unwrap(await store.unset('listener.tls'))
    expect(store.status().restartRequired).toEqual([])
    const pinned = open(dir, { restartKeys: listenerRestartKeys, pinnedKeys: ['listener.port'] })
    unwrap(await pinned.set('listener.port', 7700))
    expect(pinned.status().restartRequired).toEqual([])
  })
})

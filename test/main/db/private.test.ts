import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe.skipIf(process.platform === 'win32')('the data dir is private by default', () => {
  const tempDir = useTempDir()
  const start = (dataDir: string) =>
    startBackend({
      dataDir,
      shell: 'serve',
      env: {},
      log: silentLogger,
      listenerPort: 0,
      secrets: createMemoryStore({}),
    })

  it('creates the data dir 0700 and the database, WAL, SHM and lock 0600', async () => {
    const dataDir = join(tempDir(), 'fresh')
    const backend = unwrap(await start(dataDir))
    try {
      expect(modeOf(dataDir)).toBe('700')
      for (const name of ['watchdesk.db', 'watchdesk.db-wal', 'watchdesk.db-shm', 'watchdesk.lock'])
        expect([name, modeOf(join(dataDir, name))]).toEqual([name, '600'])
    } finally {
      await backend.close()
    }
  })

  it('fixes an install made readable by others (755 dir, 644 files) on start', async () => {
    const dataDir = join(tempDir(), 'old')
    mkdirSync(dataDir, { mode: 0o755 })
    chmodSync(dataDir, 0o755)
    await unwrap(await start(dataDir)).close()
    writeFileSync(join(dataDir, 'config.json'), '{}', { mode: 0o644 })
    writeFileSync(join(dataDir, 'watchdesk.log'), '', { mode: 0o644 })
    for (const name of ['watchdesk.db', 'config.json', 'watchdesk.log']) chmodSync(join(dataDir, name), 0o644)
    chmodSync(dataDir, 0o755)
    const backend = unwrap(await start(dataDir))
    try {
      expect(modeOf(dataDir)).toBe('700')
      for (const name of ['watchdesk.db', 'config.json', 'watchdesk.log', 'watchdesk.db-wal'])
        expect([name, modeOf(join(dataDir, name))]).toEqual([name, '600'])
    } finally {
      await backend.close()
    }
  })
})

import type { StorageUsage as StorageUsageContract } from '../../shared/contract/storage'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from 'better-sqlite3'
import { freeBytesAt, lowSpaceWarning } from './health'

/** Disk use without retention's part (the contract's StorageUsage, src/shared/contract/storage.ts). */
export type StorageUsage = Omit<StorageUsageContract, 'retention'>

export function measureStorage(
  db: Database,
  dataDir: string,
  databaseFile: string,
  warnFreeMb: number,
): StorageUsage {
  const events = db.prepare('SELECT count(*) AS n, min(received_at) AS oldest FROM events').get() as {
    n: number
    oldest: number | null
  }
  const freeBytes = freeBytesAt(dataDir)
  return {
    dataDir,
    database: databaseFile,
    dataDirBytes: bytesUnder(dataDir),
    databaseBytes: ['', '-wal', '-shm'].reduce((sum, suffix) => sum + sizeOf(databaseFile + suffix), 0),
    events: events.n,
    oldestEventAt: events.oldest,
    freeBytes,
    warnFreeMb,
    warning: lowSpaceWarning(dataDir, freeBytes, warnFreeMb),
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

function bytesUnder(dir: string): number {
  let total = 0
  let entries: import('node:fs').Dirent[]
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += bytesUnder(path)
    else if (entry.isFile()) total += sizeOf(path)
  }
  return total
}

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

export interface InstanceLock {
  file: string
  release(): void
}

/** One running console per data dir. SQLite itself would let two writers share the file; two
 * listeners and two pollers on one database would not be what the operator meant. A lock left by a
 * crashed instance (its pid is gone) is taken over. */
export function acquireInstanceLock(dataDir: string, pid = process.pid): Result<InstanceLock> {
  const file = join(dataDir, 'watchdesk.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(pid))
      closeSync(fd)
      return ok({ file, release: () => releaseIfOurs(file, pid) })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        return err(
          'unavailable',
          `Cannot create ${file}: ${(error as Error).message}. Check that the data dir is writable.`,
        )
      }
      const holder = readHolder(file)
      if (holder !== null && holder !== pid && isAlive(holder)) {
        return err(
          'conflict',
          `Another watchdesk (pid ${holder}) is already running with the data dir ${dataDir}. ` +
            `Close it, or start this one with another --data-dir.`,
        )
      }
      rmSync(file, { force: true })
    }
  }
  return err('conflict', `Could not take ${file}; another watchdesk is starting with the same data dir.`)
}

function readHolder(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
    return Number.isFinite(pid) ? pid : null
  } catch {
    return null
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function releaseIfOurs(file: string, pid: number): void {
  if (readHolder(file) === pid) rmSync(file, { force: true })
}

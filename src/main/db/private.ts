import { chmodSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Stored payment events, the configuration and the logs are the operator's alone: the data dir
 * is 0700 and what watchdesk keeps in it 0600 (POSIX; on Windows the profile's ACLs apply). Run
 * on every start, so an install made before this rule is fixed too. Returns what was changed. */
export function makeDataDirPrivate(dataDir: string): string[] {
  if (process.platform === 'win32') return []
  const changed: string[] = []
  const restrict = (path: string, mode: number) => {
    try {
      if ((statSync(path).mode & 0o777) === mode) return
      chmodSync(path, mode)
      changed.push(path)
    } catch {
      // Absent (no WAL yet) or not ours to change: nothing to do.
    }
  }
  restrict(dataDir, 0o700)
  let names: string[] = []
  try {
    names = readdirSync(dataDir)
  } catch {
    return changed
  }
  for (const name of names) if (isOurs(name)) restrict(join(dataDir, name), 0o600)
  return changed
}

/** The database and its WAL/SHM, the configuration (and its temp files), the lock, the logs. */
function isOurs(name: string): boolean {
  return (
    /^watchdesk\.db(-wal|-shm|-journal)?$/.test(name) ||
    /^config\.json(\..*)?$/.test(name) ||
    name === 'watchdesk.lock' ||
    /\.log(\.\d+)?$/.test(name)
  )
}

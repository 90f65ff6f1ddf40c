import { readdirSync, readlinkSync, statfsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { StorageStatus } from '../../shared/contract/storage'
import type { Disposable } from '../../shared/disposable'
import { formatBytes } from '../../shared/bytes'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'

/** A failed write as every writer sees it: SQLite's code (when there is one) and the message. */
export interface WriteFailure {
  code: string | null
  message: string
}

/** Whether the database takes commits, from what every writer reports (the commit worker, the
 * listener's run marks, chain history). One writer of this state: whoever writes tells it. */
export interface StorageHealth {
  status(): StorageStatus
  /** A write failed; `where` names the writer for the log. Accepts a thrown error as it is. */
  failed(where: string, error: unknown): void
  /** A write committed: back to `ok` if it was not. */
  committed(): void
  onChange(listener: (status: StorageStatus) => void): Disposable
}

export function failureFrom(error: unknown): WriteFailure {
  if (error && typeof error === 'object' && 'message' in error) {
    const code = (error as { code?: unknown }).code
    return {
      code: typeof code === 'string' ? code : null,
      message: String((error as { message: unknown }).message),
    }
  }
  return { code: null, message: String(error) }
}

export interface StorageHealthOptions {
  /** `storage.warnFreeMb`, read at each check (a config change applies). */
  warnFreeMb?: () => number
  /** How long a free-space reading is reused (statfs is cheap; status() is read often). */
  spaceCheckMs?: number
}

export function createStorageHealth(
  file: string,
  log: Logger,
  now: () => number = Date.now,
  options: StorageHealthOptions = {},
): StorageHealth {
  let status: StorageStatus = {
    state: 'ok',
    file,
    cause: null,
    fix: null,
    code: null,
    since: now(),
    lastOkAt: null,
    failures: 0,
  }
  const changes = new Emitter<StorageStatus>({
    onListenerError: (error) => log.error('a storage status subscriber failed', { error }),
  })
  const changed = () => changes.fire(status)
  // Free space is read when the status is (the alerts engine, /metrics and the views read it every
  // few seconds), at most every spaceCheckMs; a change is pushed like a change of state.
  let spaceCheckedAt = -Infinity
  const checkSpace = () => {
    const warnFreeMb = options.warnFreeMb
    if (!warnFreeMb || now() - spaceCheckedAt < (options.spaceCheckMs ?? 10_000)) return
    spaceCheckedAt = now()
    const dir = dirname(file)
    const lowSpace = lowSpaceWarning(dir, freeBytesAt(dir), warnFreeMb())
    if (lowSpace === (status.lowSpace ?? null)) return
    status = { ...status, lowSpace }
    if (lowSpace) log.warn('free space is low', { lowSpace })
    else log.info('free space is above storage.warnFreeMb again')
    changed()
  }
  return {
    status: () => {
      checkSpace()
      return status
    },
    failed(where, error) {
      const failure = failureFrom(error)
      const described = describe(file, failure)
      const failures = status.failures + 1
      if (described.state === status.state && described.code === status.code) {
        status = { ...status, failures }
        return
      }
      status = { ...status, ...described, since: now(), failures }
      log.error('the database cannot commit', {
        where,
        state: status.state,
        cause: status.cause,
        fix: status.fix,
      })
      changed()
    },
    committed() {
      const at = now()
      if (status.state === 'ok') {
        status = { ...status, lastOkAt: at }
        return
      }
      log.info('the database commits again', { after: status.state, sinceMs: at - status.since })
      status = { ...status, state: 'ok', cause: null, fix: null, code: null, since: at, lastOkAt: at }
      changed()
    },
    onChange: changes.event,
  }
}

const resumes =
  'watchdesk retries by itself; webhooks are answered 503 meanwhile, so the service redelivers them.'

/** The state, the cause and the fix for one failure. */
export function describe(
  file: string,
  failure: WriteFailure,
): Pick<StorageStatus, 'state' | 'cause' | 'fix' | 'code'> {
  const code = failure.code
  const dir = dirname(file)
  if (code?.startsWith('SQLITE_FULL') || /disk is full|ENOSPC/i.test(failure.message)) {
    return {
      state: 'full',
      code: code ?? 'SQLITE_FULL',
      cause: `Disk full at ${dir}: ${freeSpace(dir)} free.`,
      fix: `Free space on that disk, or move the data dir (--data-dir). ${resumes}`,
    }
  }
  if (
    code?.startsWith('SQLITE_BUSY') ||
    code?.startsWith('SQLITE_LOCKED') ||
    /database is locked/i.test(failure.message)
  ) {
    const holders = processesHolding(file)
    return {
      state: 'locked',
      code: code ?? 'SQLITE_BUSY',
      cause: `Database ${file} is locked by another process${holders.length ? ` (pid ${holders.join(', ')})` : ''}.`,
      fix: `Close the program holding it (an sqlite3 shell, a backup tool). ${resumes}`,
    }
  }
  return {
    state: 'failing',
    code,
    cause: `Database ${file} cannot be written (${code ? `${code}: ` : ''}${failure.message}).`,
    fix: `Check the disk and that the data dir is writable by this user. ${resumes}`,
  }
}

export function lowSpaceWarning(
  dataDir: string,
  freeBytes: number | null,
  warnFreeMb: number,
): string | null {
  if (freeBytes === null || warnFreeMb === 0 || freeBytes >= warnFreeMb * 1024 * 1024) return null
  return (
    `Only ${formatBytes(freeBytes)} free on the disk of ${dataDir} (warning below ${warnFreeMb} MB, storage.warnFreeMb): ` +
    'free space, shorten retention (retention.<kind>.days), or move the data dir, before writes fail.'
  )
}

export function freeBytesAt(dir: string): number | null {
  try {
    const stats = statfsSync(dir)
    return stats.bavail * stats.bsize
  } catch {
    return null
  }
}

function freeSpace(dir: string): string {
  try {
    const stats = statfsSync(dir)
    return formatBytes(stats.bavail * stats.bsize)
  } catch {
    return 'unknown space'
  }
}

/** Other processes with the database (or its WAL/SHM) open, from /proc (Linux only; elsewhere,
 * and for processes of other users this one may not inspect, the list is empty). */
export function processesHolding(file: string, limit = 8): number[] {
  const full = resolve(file)
  const names = new Set([full, `${full}-wal`, `${full}-shm`])
  const found: number[] = []
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return found
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      if (names.has(target)) {
        found.push(Number(pid))
        break
      }
    }
    if (found.length >= limit) break
  }
  return found
}

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

export interface InstanceLock {
  file: string
  /** Why an existing lock was taken over (for the log), null when there was none. */
  tookOver: string | null
  release(): void
}

/** Who holds a lock: the console (serve or the desktop app), `watchdesk listen`, or a relay. */
export type LockRole = 'console' | 'listen' | 'relay'

interface LockRecord {
  pid: number
  /** Who that pid was when it took the lock (see processIdentity); null where unknown. */
  identity: string | null
  /** Absent in locks written before roles. */
  role: LockRole | null
}

const ownerWords: Record<LockRole, string> = {
  console: 'the console',
  listen: '`watchdesk listen`',
  relay: 'the relay',
}

/** "the console running as pid 4711" (or "watchdesk running as pid …" for a lock without a role). */
const ownerOf = (holder: LockRecord) =>
  `${holder.role ? ownerWords[holder.role] : 'watchdesk'} running as pid ${holder.pid}`

/** The lock file of a SQLite database: `watchdesk.lock` beside a `watchdesk.db` (the one a console
 * or `listen` takes in its data dir, so a relay pointed at a console's database meets the
 * console's own lock), `<file>.lock` beside any other file. */
export function lockFileOf(databaseFile: string): string {
  return basename(databaseFile) === 'watchdesk.db'
    ? join(dirname(databaseFile), lockFileName)
    : `${databaseFile}.lock`
}

const lockFileName = 'watchdesk.lock'

/** One running console per data dir. SQLite itself would let two writers share the file; two
 * listeners and two pollers on one database would not be what the operator meant.
 *
 * The lock records the pid, the role and the identity of that process (on Linux the boot id and
 * the start time in /proc/PID/stat, so neither a reboot nor a recycled pid fools it). A lock whose
 * process has ended, or whose pid now belongs to another process, is taken over. Limitation: where
 * there is no /proc (macOS, Windows) a live pid counts as the holder, so a recycled pid blocks
 * start until the lock file is removed. */
export function acquireInstanceLock(
  dataDir: string,
  pid = process.pid,
  role: LockRole = 'console',
): Result<InstanceLock> {
  return acquireLock(join(dataDir, lockFileName), pid, role, (holder) =>
    holder.role === 'relay'
      ? `${ownerOf(holder)} uses the data dir ${dataDir} as its store. Stop it, or start this one with another --data-dir.`
      : `Another watchdesk (${ownerOf(holder)}) is already running with the data dir ${dataDir}. ` +
        `Close it, or start this one with another --data-dir.`,
  )
}

/** One writer per SQLite store (issue 29): a relay takes the lock of its database file, the same
 * lock a console or `listen` holds for its data dir's database, so neither can share it. */
export function acquireStoreLock(databaseFile: string, pid = process.pid): Result<InstanceLock> {
  return acquireLock(
    lockFileOf(databaseFile),
    pid,
    'relay',
    (holder) =>
      `${databaseFile}: this database belongs to ${ownerOf(holder)}; give the relay its own --data-dir (or --store sqlite:PATH).`,
  )
}

function acquireLock(
  file: string,
  pid: number,
  role: LockRole,
  held: (holder: LockRecord) => string,
): Result<InstanceLock> {
  let tookOver: string | null = null
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      const record: LockRecord = { pid, identity: processIdentity(pid), role }
      writeSync(fd, JSON.stringify(record))
      closeSync(fd)
      return ok({ file, tookOver, release: () => releaseIfOurs(file, pid) })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        return err(
          'unavailable',
          `Cannot create ${file}: ${(error as Error).message}. Check that the data dir is writable.`,
        )
      }
      const holder = readHolder(file)
      const verdict = holder === null ? 'unreadable' : judge(holder, pid)
      if (verdict === 'running') return err('conflict', held(holder!))
      tookOver = takeOverReason(file, holder, verdict)
      rmSync(file, { force: true })
    }
  }
  return err('conflict', `Could not take ${file}; another watchdesk is starting with the same data dir.`)
}

type Verdict = 'running' | 'ended' | 'other-process' | 'ours' | 'unreadable'

function judge(holder: LockRecord, pid: number): Verdict {
  if (holder.pid === pid) return 'ours'
  if (!isAlive(holder.pid)) return 'ended'
  const now = processIdentity(holder.pid)
  if (holder.identity !== null && now !== null) return holder.identity === now ? 'running' : 'other-process'
  // A lock from before identities (a bare pid): on Linux, a live process that is not watchdesk
  // (its command line does not name it) is not the holder.
  const command = commandLine(holder.pid)
  if (command !== null) return /watchdesk/i.test(command) ? 'running' : 'other-process'
  return 'running'
}

function takeOverReason(file: string, holder: LockRecord | null, verdict: Verdict): string {
  switch (verdict) {
    case 'ended':
      return `took over ${file}: its process (pid ${holder!.pid}) has ended`
    case 'other-process':
      return `took over ${file}: pid ${holder!.pid} is now another program, not the watchdesk that locked it`
    case 'ours':
      return `took over ${file}: it names this process`
    default:
      return `took over ${file}: it did not name a process`
  }
}

/** Boot id and start time (clock ticks since boot) of a process, from /proc; null elsewhere. */
export function processIdentity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Field 2 (the command) may hold spaces and parentheses: count fields after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const startTime = fields[19] // field 22
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return startTime ? `${bootId}:${startTime}` : null
  } catch {
    return null
  }
}

function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return null
  }
}

function readHolder(file: string): LockRecord | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8').trim()
  } catch {
    return null
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), identity: null, role: null }
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid)) return null
    const role = typeof parsed.role === 'string' && parsed.role in ownerWords ? parsed.role : null
    return {
      pid: parsed.pid,
      identity: typeof parsed.identity === 'string' ? parsed.identity : null,
      role,
    }
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
  if (readHolder(file)?.pid === pid) rmSync(file, { force: true })
}

import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  watch,
  writeSync,
} from 'node:fs'
import type { FSWatcher } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Config } from '../../shared/config'
import { keepMaskedSecrets } from '../../shared/config-secrets'
import type { ConfigStatus } from '../../shared/contract/app'
import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { applyPatches, changedKeys, diffObjects, getPath, splitKey, unsetPath, setPath } from './dotted'
import { configFileName, loadFromRaw, parseObject, readOverlay, readRaw, revisionOf, validate } from './load'
import type { LoadedConfig } from './load'

/** A change to the saved config, applied to the file as it is on disk at the moment of writing
 * (never to an in-memory copy): it may change `saved` in place or return a new object. */
export type ConfigMutation = (saved: Record<string, unknown>) => Record<string, unknown> | void

export type ConfigChangeOrigin = 'this process' | 'file'

/** The one writer of config.json. The console, the CLI and the watcher of hand edits all go
 * through it:
 * - `update(mutation)`: under a short cross-process lock, reads the file, applies the mutation,
 *   validates the result with the same schema as at start, writes a temp file in the same folder
 *   (0600, fsync) and renames it over config.json, unless the file's content hash changed since
 *   it was read (an editor saved meanwhile): then it reads again and re-applies the mutation.
 * - `watch()`: follows edits made by others (an editor, the CLI) and applies them live; an invalid
 *   edit keeps the last good config and becomes `status().problem`, naming the key. */
export interface ConfigStore {
  current(): LoadedConfig
  status(): ConfigStatus
  update(mutation: ConfigMutation): Promise<Result<LoadedConfig>>
  /** Writes `next` as a change from `base` (by default the saved object this store last read):
   * only what differs is applied to the file as it is now, so a stale copy loses nothing. */
  replace(next: Record<string, unknown>, base?: Record<string, unknown>): Promise<Result<LoadedConfig>>
  /** Sets one dotted key (`listener.port`) to a value (the CLI parses its text with `parseValue`). */
  set(key: string, value: unknown): Promise<Result<LoadedConfig>>
  unset(key: string): Promise<Result<{ loaded: LoadedConfig; removed: boolean }>>
  /** The saved value at a dotted key and the effective one (defaults and --config applied). */
  get(key: string): Result<{ saved: unknown; effective: unknown }>
  /** Re-reads the file now (what the watcher does after an edit settles). */
  check(): void
  /** Starts following the file; disposing the result stops it (so does `close`). */
  watch(): Disposable
  onChange(listener: (loaded: LoadedConfig, origin: ConfigChangeOrigin) => void): Disposable
  onStatus(listener: (status: ConfigStatus) => void): Disposable
  close(): void
}

export interface ConfigStoreOptions {
  dataDir: string
  /** `--config FILE`, laid over config.json (read, never written). */
  overlayFile?: string
  log?: Logger
  /** Dotted keys read only at start: a change to them is listed in `status().restartRequired`. */
  restartKeys?: string[]
  /** Keys that the command line pins for this run (`--listener-port`): their file value is moot. */
  pinnedKeys?: string[]
  /** Quiet time before a change seen by the watcher is read (editors write in several steps). */
  debounceMs?: number
  /** Safety net for file systems where fs.watch misses events. */
  pollMs?: number
}

/** What the webhook listener reads when it starts. */
export const listenerRestartKeys = [
  'listener.host',
  'listener.port',
  'listener.tls',
  'listener.maxBodyBytes',
  'listener.headersTimeoutMs',
  'listener.bodyTimeoutMs',
  'listener.maxConnections',
  'listener.maxBodyBytesInFlight',
]

const lockStaleMs = 10_000
const lockWaitMs = 5_000
const casAttempts = 5

export function openConfigStore(options: ConfigStoreOptions): Result<ConfigStore> {
  const file = join(options.dataDir, configFileName)
  const raw = readRaw(file)
  if (!raw.ok) return raw
  const first = loadFromRaw(file, raw.value, options.overlayFile)
  if (!first.ok) return first
  return ok(createStore(options, file, first.value))
}

function createStore(options: ConfigStoreOptions, file: string, first: LoadedConfig): ConfigStore {
  const log = options.log?.child({ part: 'config' })
  const restartKeys = options.restartKeys ?? []
  const pinned = options.pinnedKeys ?? []
  const startConfig = first.config
  let loaded = first
  let problem: string | null = null
  let changedAt: string | null = null
  let queue: Promise<unknown> = Promise.resolve()
  const changeListeners = new Set<(loaded: LoadedConfig, origin: ConfigChangeOrigin) => void>()
  const statusListeners = new Set<(status: ConfigStatus) => void>()
  let watching: Disposable | null = null

  const status = (): ConfigStatus => ({
    file,
    revision: loaded.revision,
    changedAt,
    problem,
    restartRequired: restartRequired(startConfig, loaded.config, restartKeys, pinned),
  })

  const publishStatus = () => {
    const s = status()
    for (const listener of statusListeners) safely(() => listener(s))
  }

  const adopt = (next: LoadedConfig, origin: ConfigChangeOrigin) => {
    loaded = next
    changedAt = new Date().toISOString()
    problem = null
    log?.info('configuration changed', { origin, revision: next.revision })
    for (const listener of changeListeners) safely(() => listener(next, origin))
    publishStatus()
  }

  function safely(run: () => void) {
    try {
      run()
    } catch (error) {
      log?.error('a configuration subscriber failed', { error })
    }
  }

  const check = () => {
    const raw = readRaw(file)
    if (!raw.ok) return setProblem(raw.error.message)
    if (raw.value.revision === loaded.revision) {
      if (problem) setProblem(null)
      return
    }
    const next = loadFromRaw(file, raw.value, options.overlayFile)
    if (!next.ok)
      return setProblem(
        `${next.error.message} The last valid configuration stays in use until the file is fixed.`,
      )
    adopt(next.value, 'file')
  }

  function setProblem(message: string | null) {
    if (message === problem) return
    problem = message
    if (message) log?.warn('configuration edit not applied', { problem: message })
    publishStatus()
  }

  const write = async (mutation: ConfigMutation): Promise<Result<LoadedConfig>> => {
    const lock = await acquireLock(`${file}.lock`)
    if (!lock.ok) return lock
    try {
      for (let attempt = 0; attempt < casAttempts; attempt++) {
        const saved = saveOnce(file, mutation, loaded, options.overlayFile)
        if (!saved.ok) return saved
        if (!saved.value) continue // an editor saved in between: read again, apply again
        adopt(saved.value, 'this process')
        return ok(saved.value)
      }
      return err(
        'conflict',
        `${file} kept changing while saving (${casAttempts} tries); nothing was saved. Try again.`,
      )
    } finally {
      lock.value()
    }
  }

  const update = (mutation: ConfigMutation): Promise<Result<LoadedConfig>> => {
    // One write at a time in this process; other processes are kept out by the lock file.
    const run = queue.then(() => write(mutation))
    queue = run.catch(() => undefined)
    return run
  }

  const store: ConfigStore = {
    current: () => loaded,
    status,
    update,
    replace: (next, base = loaded.saved) => {
      const patches = diffObjects(base, next)
      return update((saved) => applyPatches(saved, patches))
    },
    set: (key, value) => {
      const parts = splitKey(key)
      if (!parts.ok) return Promise.resolve(parts)
      return update((saved) => setPath(saved, parts.value, structuredClone(value)))
    },
    unset: async (key) => {
      const parts = splitKey(key)
      if (!parts.ok) return parts
      let removed = false
      const done = await update((saved) => {
        removed = unsetPath(saved, parts.value)
      })
      return done.ok ? ok({ loaded: done.value, removed }) : done
    },
    get: (key) => {
      if (key === '') return ok({ saved: loaded.saved, effective: loaded.config })
      const parts = splitKey(key)
      if (!parts.ok) return parts
      return ok({
        saved: getPath(loaded.saved, parts.value),
        effective: getPath(loaded.config as unknown as Record<string, unknown>, parts.value),
      })
    },
    check,
    watch: () => {
      watching ??= watchFile(options, file, check, log)
      return toDisposable(() => {
        watching?.dispose()
        watching = null
      })
    },
    onChange: (listener) => {
      changeListeners.add(listener)
      return toDisposable(() => changeListeners.delete(listener))
    },
    onStatus: (listener) => {
      statusListeners.add(listener)
      return toDisposable(() => statusListeners.delete(listener))
    },
    close: () => {
      watching?.dispose()
      watching = null
      changeListeners.clear()
      statusListeners.clear()
    },
  }
  return store
}

/** One try at saving `mutation` over the file as it reads now (`current`: what this process holds):
 * the saved config, or null when an editor saved in between (the caller reads again). */
function saveOnce(
  file: string,
  mutation: ConfigMutation,
  current: LoadedConfig,
  overlayFile: string | undefined,
): Result<LoadedConfig | null> {
  const raw = readRaw(file)
  if (!raw.ok) return raw
  const base = raw.value.text === null ? ok({}) : parseObject(file, raw.value.text)
  if (!base.ok)
    return err('conflict', `${base.error.message} Nothing was saved, so the hand edit is not overwritten.`)
  const draft = structuredClone(base.value)
  const next = mutation(draft) ?? draft
  const masked = keepMaskedSecrets(next, [base.value, current.config])
  if (masked.length > 0)
    return err('bad_request', `Nothing was saved: ${masked.map((p) => `${p.key}: ${p.message}`).join(' ')}`)
  const overlay = readOverlay(overlayFile)
  if (!overlay.ok) return overlay
  const config = validate(file, next, overlay.value, overlayFile)
  if (!config.ok)
    return err('bad_request', config.error.message.replace(/^The configuration in/, 'That change to'))
  const text = JSON.stringify(next, null, 2) + '\n'
  const written = writeIfUnchanged(file, text, raw.value.revision)
  if (!written.ok) return written
  if (!written.value) return ok(null)
  return ok({
    config: config.value,
    saved: next,
    file,
    overlayFile: current.overlayFile,
    revision: revisionOf(text),
  })
}

function restartRequired(start: Config, now: Config, keys: string[], pinned: string[]): string[] {
  const out: string[] = []
  for (const key of keys) {
    if (pinned.some((p) => key === p || key.startsWith(`${p}.`))) continue
    const parts = key.split('.')
    const changed = changedKeys(
      getPath(start as unknown as Record<string, unknown>, parts),
      getPath(now as unknown as Record<string, unknown>, parts),
      key,
    )
    out.push(...changed)
  }
  return out
}

/** Temp file in the same folder (so the rename is atomic), 0600, fsync; renamed over the file only
 * if the file still has the revision the change was based on. False when it had changed. */
function writeIfUnchanged(file: string, text: string, expected: string): Result<boolean> {
  const dir = join(file, '..')
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    const now = readRaw(file)
    if (!now.ok || now.value.revision !== expected) {
      unlinkSync(temp)
      if (!now.ok) return now
      return ok(false)
    }
    renameSync(temp, file)
    syncDir(dir)
    return ok(true)
  } catch (error) {
    try {
      unlinkSync(temp)
    } catch {
      // it was never created, or the rename took it
    }
    return err(
      'unavailable',
      `Cannot write ${file} (${(error as Error).message}). Check the data dir's permissions and free space.`,
    )
  }
}

function syncDir(dir: string) {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Not every platform can fsync a directory (Windows); the rename is still atomic.
  }
}

/** A lock file beside config.json (O_EXCL) holding the writer's pid; a lock left by a process
 * that died, or older than a write can take, is taken over. Returns the release function. */
async function acquireLock(lockFile: string): Promise<Result<() => void>> {
  const deadline = Date.now() + lockWaitMs
  // The first `config set` on a new machine comes before any start created the data dir.
  try {
    mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 })
  } catch {
    // Not ours to create: the open below names the cause.
  }
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return ok(() => {
        try {
          unlinkSync(lockFile)
        } catch {
          // already gone (taken over as stale)
        }
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        return err(
          'unavailable',
          `Cannot create ${lockFile} (${(error as Error).message}). Check the data dir's permissions (watchdesk doctor checks them).`,
        )
    }
    if (lockIsStale(lockFile)) {
      try {
        unlinkSync(lockFile)
      } catch {
        // another writer took it over first
      }
      continue
    }
    if (Date.now() > deadline)
      return err(
        'conflict',
        `${lockFile} is held by another writer for more than ${lockWaitMs / 1000} s; nothing was saved. Try again.`,
      )
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
}

function lockIsStale(lockFile: string): boolean {
  try {
    const pid = Number(readFileSync(lockFile, 'utf8'))
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) return true
    return Date.now() - statSync(lockFile).mtimeMs > lockStaleMs
  } catch {
    return false
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** fs.watch on the folder (editors replace the file by rename, which a watch on the file itself
 * would lose), debounced; plus a slow stat poll as a safety net. */
function watchFile(
  options: ConfigStoreOptions,
  file: string,
  check: () => void,
  log: Logger | undefined,
): Disposable {
  const name = basename(file)
  const debounceMs = options.debounceMs ?? 150
  let timer: NodeJS.Timeout | null = null
  const soon = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      check()
    }, debounceMs)
  }
  let watcher: FSWatcher | null = null
  try {
    watcher = watch(options.dataDir, { persistent: false }, (_event, changed) => {
      if (!changed || changed.toString() === name) soon()
    })
    watcher.on('error', (error) => log?.warn('config watcher stopped; polling instead', { error }))
  } catch (error) {
    log?.warn('cannot watch the data dir; polling config.json instead', { error })
  }
  let lastStat = statKey(file)
  const poll = setInterval(() => {
    const now = statKey(file)
    if (now !== lastStat) {
      lastStat = now
      soon()
    }
  }, options.pollMs ?? 2_000)
  poll.unref()
  return toDisposable(() => {
    watcher?.close()
    clearInterval(poll)
    if (timer) clearTimeout(timer)
  })
}

function statKey(file: string): string {
  try {
    const s = statSync(file)
    return `${s.mtimeMs}:${s.size}:${s.ino}`
  } catch {
    return 'missing'
  }
}

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { processAlive } from './store'

/** Where a running back end publishes its actual addresses (ports may be 0 = "any free one"), so
 * the command line (`send-test-event`) reaches the listener that really runs. No token in it. */
export const runtimeFileName = 'runtime.json'

export interface RuntimeInfo {
  pid: number
  shell: 'electron' | 'serve'
  version: string
  startedAt: string
  /** The console's URL without its launch token; null until it listens (or in the desktop app). */
  consoleUrl: string | null
  /** The webhook listener's base URL (…/webhooks is its path); null while it does not listen. */
  listenerUrl: string | null
}

export function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): void {
  const file = join(dataDir, runtimeFileName)
  const temp = `${file}.${process.pid}.tmp`
  try {
    const fd = openSync(temp, 'w', 0o600)
    try {
      writeSync(fd, JSON.stringify(info, null, 2) + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, file)
  } catch {
    // Best effort: the CLI falls back to the configured address.
  }
}

/** Removes the file on a clean stop, only if it is still this process's. */
export function removeRuntimeInfo(dataDir: string, pid = process.pid): void {
  const current = readRuntimeInfo(dataDir, { includeDead: true })
  if (current && current.pid !== pid) return
  try {
    unlinkSync(join(dataDir, runtimeFileName))
  } catch {
    // already gone
  }
}

/** The running back end's addresses; null when none runs (no file, or its pid is not alive). */
export function readRuntimeInfo(
  dataDir: string,
  { includeDead = false }: { includeDead?: boolean } = {},
): RuntimeInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, runtimeFileName), 'utf8')) as RuntimeInfo
    if (typeof info?.pid !== 'number') return null
    if (!includeDead && !processAlive(info.pid)) return null
    return info
  } catch {
    return null
  }
}

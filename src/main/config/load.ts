import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { Config } from '../../shared/config'
import { configSecretValues } from '../../shared/config-secrets'
import type { Config as ConfigT } from '../../shared/config'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { redactFromLogs } from '../log'
import { isPlainObject } from './dotted'

export const configFileName = 'config.json'

/** OS convention: XDG on Linux, Application Support on macOS, %LOCALAPPDATA% on Windows (local,
 * not roaming: a roaming profile would copy the SQLite database at every log-on and log-off). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'watchdesk')
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'watchdesk')
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'watchdesk')
}

export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.WATCHDESK_DATA_DIR ?? defaultDataDir(env))
}

export interface LoadedConfig {
  config: ConfigT
  /** What the operator saved in the data dir: the only part the writer changes. */
  saved: Record<string, unknown>
  file: string
  overlayFile: string | null
  /** Content hash of config.json as read ("none" when there is no file): the writer's
   * compare-and-swap token. */
  revision: string
}

/** The bytes of a file and their revision; null text when the file does not exist. */
export interface RawFile {
  text: string | null
  revision: string
}

export const missingRevision = 'none'

export function revisionOf(text: string | null): string {
  return text === null ? missingRevision : createHash('sha256').update(text).digest('hex').slice(0, 16)
}

export function readRaw(file: string): Result<RawFile> {
  try {
    const text = readFileSync(file, 'utf8')
    return ok({ text, revision: revisionOf(text) })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return ok({ text: null, revision: missingRevision })
    return err(
      'unavailable',
      `Cannot read ${file} (${(error as Error).message}). Check its permissions (it should be yours, mode 0600).`,
    )
  }
}

export function parseObject(file: string, text: string): Result<Record<string, unknown>> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return err(
      'bad_request',
      `${file} is not valid JSON (${(error as Error).message}). Fix the file or move it aside.`,
    )
  }
  if (!isPlainObject(value)) return err('bad_request', `${file} must hold a JSON object of config keys.`)
  return ok(value)
}

export function readOverlay(overlayFile: string | undefined): Result<Record<string, unknown>> {
  if (!overlayFile) return ok({})
  const file = resolve(overlayFile)
  const raw = readRaw(file)
  if (!raw.ok) return raw
  if (raw.value.text === null)
    return err('not_found', `The config file ${file} does not exist. Check the path given to --config.`)
  return parseObject(file, raw.value.text)
}

/** Validates the saved object with the overlay laid over it; the error names the file and the key. */
export function validate(
  file: string,
  saved: Record<string, unknown>,
  overlay: Record<string, unknown>,
  overlayFile: string | undefined,
): Result<ConfigT> {
  const parsed = Config.safeParse(deepMerge(saved, overlay))
  if (parsed.success) {
    // The last guard: no log line or CLI output of this process shows a credential of the config.
    for (const secret of configSecretValues(parsed.data)) redactFromLogs(secret)
    return ok(parsed.data)
  }
  const where = overlayFile ? `${file} with ${overlayFile} over it` : file
  return err('bad_request', `The configuration in ${where} is not valid: ${z.prettifyError(parsed.error)}`)
}

/** The data dir's config.json, with `--config FILE` laid over it, validated as a whole. */
export function loadConfig(dataDir: string, overlayFile?: string): Result<LoadedConfig> {
  const file = join(dataDir, configFileName)
  const raw = readRaw(file)
  if (!raw.ok) return raw
  return loadFromRaw(file, raw.value, overlayFile)
}

export function loadFromRaw(
  file: string,
  raw: RawFile,
  overlayFile: string | undefined,
): Result<LoadedConfig> {
  const saved = raw.text === null ? ok({}) : parseObject(file, raw.text)
  if (!saved.ok) return saved
  const overlay = readOverlay(overlayFile)
  if (!overlay.ok) return overlay
  const config = validate(file, saved.value, overlay.value, overlayFile)
  if (!config.ok) return config
  return ok({
    config: config.value,
    saved: saved.value,
    file,
    overlayFile: overlayFile ? resolve(overlayFile) : null,
    revision: raw.revision,
  })
}

export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value
  }
  return out
}

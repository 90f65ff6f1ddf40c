import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { Config } from '../../shared/config'
import type { Config as ConfigT } from '../../shared/config'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

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
  /** What the operator saved in the data dir: the only part `saveConfig` rewrites. */
  saved: Record<string, unknown>
  file: string
  overlayFile: string | null
}

/** The data dir's config.json, with `--config FILE` laid over it, validated as a whole. */
export function loadConfig(dataDir: string, overlayFile?: string): Result<LoadedConfig> {
  const file = join(dataDir, configFileName)
  const saved = readJsonObject(file, { missingOk: true })
  if (!saved.ok) return saved
  const overlay = overlayFile ? readJsonObject(resolve(overlayFile), { missingOk: false }) : ok({})
  if (!overlay.ok) return overlay
  const merged = deepMerge(saved.value, overlay.value)
  const parsed = Config.safeParse(merged)
  if (!parsed.success) {
    const where = overlayFile ? `${file} with ${overlayFile} over it` : file
    return err('bad_request', `The configuration in ${where} is not valid: ${z.prettifyError(parsed.error)}`)
  }
  return ok({
    config: parsed.data,
    saved: saved.value,
    file,
    overlayFile: overlayFile ? resolve(overlayFile) : null,
  })
}

/** Validates and writes the operator's saved config atomically (write, then rename). */
export function saveConfig(dataDir: string, next: Record<string, unknown>): Result<ConfigT> {
  const parsed = Config.safeParse(next)
  if (!parsed.success)
    return err('bad_request', `That configuration is not valid: ${z.prettifyError(parsed.error)}`)
  const file = join(dataDir, configFileName)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(`${file}.tmp`, JSON.stringify(next, null, 2) + '\n')
  renameSync(`${file}.tmp`, file)
  return ok(parsed.data)
}

function readJsonObject(
  file: string,
  { missingOk }: { missingOk: boolean },
): Result<Record<string, unknown>> {
  if (!existsSync(file)) {
    return missingOk
      ? ok({})
      : err('not_found', `The config file ${file} does not exist. Check the path given to --config.`)
  }
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    return err(
      'bad_request',
      `${file} is not valid JSON (${(error as Error).message}). Fix the file or move it aside.`,
    )
  }
  if (!isPlainObject(value)) return err('bad_request', `${file} must hold a JSON object of config keys.`)
  return ok(value)
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

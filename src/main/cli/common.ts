import { loadConfig, resolveDataDir } from '../config'
import type { LoadedConfig } from '../config'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { exitCodes } from './exit'
import type { ExitCode } from './exit'
import type { CliIo } from './io'
import type { CommonOptions } from './declare'

export type { CliContext, CliDeps, CommonOptions } from './declare'
export { example, parsesOwnArguments, positiveInt, withCommon } from './declare'

export function dataDirOf(options: CommonOptions, io: CliIo): string {
  return resolveDataDir(options.dataDir, io.env)
}

/** The config for a command; an invalid file is a usage error (the operator's input is wrong). */
export function configFor(
  options: CommonOptions,
  io: CliIo,
): Result<LoadedConfig, { message: string; exit: ExitCode }> {
  const loaded = loadConfig(dataDirOf(options, io), options.config)
  if (loaded.ok) return ok(loaded.value)
  const exit = loaded.error.code === 'unavailable' ? exitCodes.cannotRun : exitCodes.usage
  return { ok: false, error: { message: loaded.error.message, exit } }
}

/** A config that could not be loaded: unreadable is "could not run", invalid is usage. */
export function configExit(error: { code: string }): ExitCode {
  return error.code === 'unavailable' ? exitCodes.cannotRun : exitCodes.usage
}

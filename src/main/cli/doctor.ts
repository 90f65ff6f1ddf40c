import { Option } from 'commander'
import type { Command } from 'commander'
import type { DoctorCheck } from '../../shared/contract/app'
import { runDoctor } from '../api/doctor'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { CliContext, CliDeps, CommonOptions } from './common'
import { dataDirOf, example, positiveInt, withCommon } from './common'
import { exitCodes } from './exit'
import type { ExitCode } from './exit'
import type { CliIo } from './io'
import { paymentsFor } from './payments-common'

interface DoctorOptions extends CommonOptions {
  port: number
  store?: string[]
}

export function registerDoctor(program: Command, ctx: CliContext): void {
  const doctor = withCommon(program.command('doctor'))
    .description(
      'Checks what watchdesk needs, each line ok, warn or fail with the fix: Node.js 22 (and where one is installed), the OS keychain (with the lines that start one without a desktop session), the data dir and its modes, config validity, the console and listener ports, the payments API with the active key and its scopes per feature, node access, the public URL, relay sources, and the stores given with --store. Exit 0 when nothing failed (warnings included), 1 when a line failed.',
    )
    .option('--port <port>', 'the console port to check', positiveInt('port', 0), 7420)
    .addOption(
      new Option(
        '--store <url>',
        'also open this relay store (sqlite:PATH or postgres://…); repeatable',
      ).argParser((value: string, previous: string[] = []) => [...previous, value]),
    )
    .action(async (options: DoctorOptions) => ctx.exit(await runDoctorCommand(options, ctx.io, ctx.deps)))
  example(
    doctor,
    'watchdesk doctor',
    'watchdesk doctor --store postgres://relay@db.internal/watchdesk --json',
  )
}

async function runDoctorCommand(options: DoctorOptions, io: CliIo, deps: CliDeps): Promise<ExitCode> {
  const dataDir = dataDirOf(options, io)
  const secrets = deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const checks = await runDoctor({
    dataDir,
    overlayFile: options.config,
    env: io.env,
    secrets,
    payments: () => paymentsFor(options, io, { ...deps, secrets }),
    consolePort: options.port,
    stores: options.store ?? [],
  })
  if (options.json) for (const c of checks) io.out(JSON.stringify(c))
  else io.out(formatChecks(checks))
  return checks.some((c) => c.state === 'fail') ? exitCodes.problem : exitCodes.ok
}

const word = { ok: 'ok', warn: 'warn', fail: 'FAIL' } as const

/** One line a check: state, label, what was found; the fix below it, indented, one command a line. */
export function formatChecks(checks: DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.label.length))
  const out: string[] = []
  for (const c of checks) {
    out.push(`${word[c.state].padEnd(4)}  ${c.label.padEnd(width)}  ${c.detail}`)
    if (c.fix) for (const l of c.fix.split('\n')) out.push(`${' '.repeat(width + 8)}${l}`)
  }
  const failed = checks.filter((c) => c.state === 'fail').length
  const warned = checks.filter((c) => c.state === 'warn').length
  out.push(
    failed > 0
      ? `${failed} failed${warned ? `, ${warned} to check` : ''}: fix the first FAIL line first (later ones may be blocked by it).`
      : warned > 0
        ? `nothing failed; ${warned} to check.`
        : 'all good.',
  )
  return out.join('\n')
}

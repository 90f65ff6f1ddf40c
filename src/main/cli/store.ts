import type { Command } from 'commander'
import { copySqliteToPostgres, parseStoreUrl } from '../relay'
import type { CliContext } from './common'
import { example } from './common'
import { exitCodes, failure, failWith } from './exit'
import type { CliIo } from './io'

/** `watchdesk store copy --from sqlite:PATH --to postgres://…` (docs/storage.md). */
export function registerStore(program: Command, ctx: CliContext): void {
  const store = program.command('store').summary('move a history between stores')
  const copy = store
    .command('copy')
    .summary("copy a SQLite data dir's events into a team relay's PostgreSQL")
    .description(
      'Copies events with their raw bodies, delivery counts and conflicts from a SQLite file into a PostgreSQL ' +
        'relay store. Idempotent and resumable: a second run copies nothing twice, a killed run continues ' +
        'where it stopped. Progress on stderr.',
    )
    .requiredOption('--from <store>', 'sqlite:PATH')
    .requiredOption('--to <store>', 'postgres://…')
    .option('--json', 'print the outcome as JSON', false)
    .action(async (options: { from: string; to: string; json: boolean }) =>
      ctx.exit(await runCopy(options, ctx.io)),
    )
  example(
    copy,
    'watchdesk store copy --from sqlite:~/.local/share/watchdesk/watchdesk.db --to postgres://watchdesk@db.internal/watchdesk',
  )
}

async function runCopy(options: { from: string; to: string; json: boolean }, io: CliIo): Promise<number> {
  const from = parseStoreUrl(options.from)
  const to = parseStoreUrl(options.to)
  if (!from.ok) return failure(io, 'store copy', from.error.message, exitCodes.usage)
  if (!to.ok) return failure(io, 'store copy', to.error.message, exitCodes.usage)
  if (from.value.kind !== 'sqlite' || to.value.kind !== 'postgres')
    return failure(
      io,
      'store copy',
      'store copy goes from a SQLite file to PostgreSQL (--from sqlite:PATH --to postgres://…); the other direction is not built yet.',
      exitCodes.usage,
    )
  const done = await copySqliteToPostgres(from.value.file, to.value.url, {
    onProgress: (p) => io.err(`copied ${p.read} of ${p.total} events (${p.inserted} new in the target)`),
  })
  if (!done.ok) return failWith(io, 'store copy', done.error)
  if (options.json) io.out(JSON.stringify(done.value))
  else
    io.out(
      `read ${done.value.read} events after position ${done.value.from}; ${done.value.inserted} were new in the target, ` +
        `${done.value.read - done.value.inserted} were there already`,
    )
  return exitCodes.ok
}

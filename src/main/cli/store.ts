import type { Command } from 'commander'
import { copyPostgresToSqlite, copySqliteToPostgres, parseStoreUrl } from '../relay'
import type { CopyProgress } from '../relay'
import type { Result } from '../../shared/result'
import type { CliContext } from './common'
import { example } from './common'
import { exitCodes, failure, failWith } from './exit'
import type { CliIo } from './io'

/** `watchdesk store copy --from sqlite:PATH --to postgres://…` and back (docs/storage.md). */
export function registerStore(program: Command, ctx: CliContext): void {
  const store = program.command('store')
  const copy = store
    .command('copy')
    .summary("copy events between a SQLite file and a team relay's PostgreSQL (either way)")
    .description(
      'Copies events with their raw bodies, delivery counts and conflicts from a SQLite file into a PostgreSQL ' +
        'relay store, or back from PostgreSQL into a SQLite file (created if missing). Idempotent and resumable: ' +
        'a second run copies nothing twice, a killed run continues where it stopped; an id the target has ' +
        'already is kept as it is. Progress on stderr.',
    )
    .requiredOption('--from <store>', 'sqlite:PATH or postgres://…')
    .requiredOption('--to <store>', 'postgres://… or sqlite:PATH')
    .option('--json', 'print the outcome as JSON', false)
    .action(async (options: { from: string; to: string; json: boolean }) =>
      ctx.exit(await runCopy(options, ctx.io)),
    )
  example(
    copy,
    'watchdesk store copy --from sqlite:~/.local/share/watchdesk/watchdesk.db --to postgres://watchdesk@db.internal/watchdesk',
  )
  example(
    copy,
    'watchdesk store copy --from postgres://watchdesk@db.internal/watchdesk --to sqlite:./relay.db',
  )
}

async function runCopy(options: { from: string; to: string; json: boolean }, io: CliIo): Promise<number> {
  const from = parseStoreUrl(options.from)
  const to = parseStoreUrl(options.to)
  if (!from.ok) return failure(io, 'store copy', from.error.message, exitCodes.usage)
  if (!to.ok) return failure(io, 'store copy', to.error.message, exitCodes.usage)
  const onProgress = (p: CopyProgress) =>
    io.err(`copied ${p.read} of ${p.total} events (${p.inserted} new in the target)`)
  let done: Result<CopyProgress & { from: number | string }>
  if (from.value.kind === 'sqlite' && to.value.kind === 'postgres')
    done = await copySqliteToPostgres(from.value.file, to.value.url, { onProgress })
  else if (from.value.kind === 'postgres' && to.value.kind === 'sqlite')
    done = await copyPostgresToSqlite(from.value.url, to.value.file, { onProgress })
  else
    return failure(
      io,
      'store copy',
      'store copy goes between a SQLite file and PostgreSQL (--from sqlite:PATH --to postgres://…, or --from postgres://… --to sqlite:PATH); to copy a SQLite file use watchdesk backup.',
      exitCodes.usage,
    )
  if (!done.ok) return failWith(io, 'store copy', done.error)
  if (options.json) io.out(JSON.stringify(done.value))
  else
    io.out(
      `read ${done.value.read} events after position ${done.value.from}; ${done.value.inserted} were new in the target, ` +
        `${done.value.read - done.value.inserted} were there already`,
    )
  return exitCodes.ok
}

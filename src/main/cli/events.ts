import type { Command } from 'commander'
import type { CliContext } from './declare'
import type { EventsOptions } from './events-run'
import { example, parsesOwnArguments, positiveInt, withCommon } from './declare'
import { registerShapes } from './shapes'

export function registerEvents(program: Command, ctx: CliContext): void {
  const events = withCommon(program.command('events'))
    .description(
      'List stored webhook events, newest first; --follow prints new ones as they are stored (until Ctrl-C).',
    )
    .option('--type <type...>', 'only these event types')
    .option('--limit <n>', 'at most this many', positiveInt('limit'), 50)
    .option('--follow', 'keep running and print each new event as it is stored (oldest first)')
    .option('--interval <ms>', 'how often --follow looks for new events', positiveInt('interval', 50), 500)
    .option('--store <url>', "read a relay's store instead: sqlite:PATH or postgres://…")
    .action(async (options: EventsOptions) => {
      const { runEvents } = await import('./events-run')
      ctx.exit(await runEvents(options, ctx.io))
    })
  registerReplay(events, ctx)
  registerShapes(events, ctx)
  example(
    events,
    'watchdesk events --type funding.completed --limit 20',
    'watchdesk events --json | head -1',
    'watchdesk events --follow --json | jq .type',
  )
}

/** `events replay`, declared for help and usage errors; `replayCommand` parses its own arguments. */
function registerReplay(events: Command, ctx: CliContext): void {
  const command = withCommon(events.command('replay'))
    .summary('send stored events again through the forward outbox')
    .description(
      'Send stored events again through the forward outbox (each attempt recorded): by id, or a filtered set. Above 100 events it asks first (--yes answers). A running serve or listen with the same target retries what fails here.',
    )
    .argument('[ids...]', 'event ids (evt_…)')
    .option('--to <url>', 'send to this URL')
    .option('--target <name>', 'send to this forward target (forward.targets)')
    .option('--type <type...>', 'every stored event of these types')
    .option('--since <iso>', 'received at or after this time')
    .option('--until <iso>', 'received before this time')
    .option('--yes', 'answer yes to the confirmation above 100 events')
    .action(
      parsesOwnArguments(ctx, 'replay', async (args, io) =>
        (await import('./replay')).replayCommand(args, io),
      ),
    )
  example(
    command,
    'watchdesk events replay evt_123 --to http://localhost:3000/hook',
    'watchdesk events replay --type funding.completed --since 2026-11-20T00:00:00Z --target app --yes',
  )
}

import type { Command } from 'commander'
import type { CliContext, CommonOptions } from './declare'
import { example, withCommon } from './declare'
/** `events shapes` (what the payload drift watch learned and the changes it saw) and
 * `events shapes ack` (acknowledge a change so it stops warning: `drift.acknowledged`). */
export function registerShapes(events: Command, ctx: CliContext): void {
  const shapes = withCommon(events.command('shapes'))
    .summary('payload shapes learned per event type, and the changes seen')
    .description(
      'The payload drift watch: each event type’s data shape as learned by the console (serve or the app) from the events it stored, and every change an event showed first (a field added, removed or retyped), newest first.',
    )
    // `events` declares the same options: an option after `shapes` may be parsed as the parent's.
    .action(async (_options: CommonOptions, command: Command) =>
      ctx.exit((await import('./shapes-run')).listShapes(command.optsWithGlobals<CommonOptions>(), ctx.io)),
    )
  example(shapes, 'watchdesk events shapes', 'watchdesk events shapes --json | jq .drifts')
  const ack = withCommon(shapes.command('ack'), { json: false })
    .summary('acknowledge a shape change so it stops warning')
    .description(
      'Adds "<type> <field>" entries to drift.acknowledged in config.json (through the config writer): a running console closes the warning at once, and later events with the same change do not warn. Without a field, every field of the type is acknowledged; `*` matches any run of characters.',
    )
    .argument('<type>', 'the event type (payment.succeeded, or payment.*)')
    .argument('[fields...]', 'field paths as the change names them (fee, customer.email, items[].sku)')
    .action(async (type: string, fields: string[], _options: CommonOptions, command: Command) =>
      ctx.exit(
        await (
          await import('./shapes-run')
        ).acknowledge(type, fields, command.optsWithGlobals<CommonOptions>(), ctx.io),
      ),
    )
  example(
    ack,
    'watchdesk events shapes ack payment.succeeded fee amount',
    'watchdesk events shapes ack "payment.*" metadata',
  )
}

import { InvalidArgumentError, Option } from 'commander'
import type { Command } from 'commander'
import { serviceIds } from '../../shared/chains/registry'
import type { CliContext } from './declare'
import type { ChainsOptions } from './chains-run'
import { example, positiveInt, withCommon } from './declare'

export function registerChains(program: Command, ctx: CliContext): void {
  const chains = withCommon(program.command('chains'))
    .description(
      'One round of checks over all twelve networks: status, head, block age, lag, latency, node identity. Exits 1 when an enabled chain is down, stalled or on the wrong network, or when no chain is monitored at all.',
    )
    .option('--watch', 'keep polling and redraw every poll interval (until Ctrl-C)')
    .option(
      '--sources',
      'one row per source of each polled chain: the service node and its references, counted or excluded and why',
    )
    .addOption(
      new Option('--chain <id...>', 'only these chains, by service id (every chain when absent)')
        .choices(serviceIds.map(String))
        .argParser(chainId),
    )
    .option(
      '--interval <ms>',
      'poll interval for --watch (default: pollIntervalMs)',
      positiveInt('interval', 250),
    )
    .action(async (options: ChainsOptions) => {
      const { runChains } = await import('./chains-run')
      ctx.exit(await runChains(options, ctx.io, ctx.deps))
    })
  example(
    chains,
    'watchdesk chains',
    'watchdesk chains --json | head -1',
    'watchdesk chains --watch --interval 2000',
    'watchdesk chains --sources',
    'watchdesk chains --sources --json',
    'watchdesk chains --chain 1 137',
  )
}

function chainId(value: string, previous: number[] | undefined): number[] {
  const id = Number(value)
  if (!serviceIds.includes(id))
    throw new InvalidArgumentError(`--chain takes a service id (${serviceIds.join(', ')}), not "${value}".`)
  return [...(previous ?? []), id]
}

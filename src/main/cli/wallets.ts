import type { Command } from 'commander'
import type { CliContext, CliDeps } from './common'
import { configExit, example, withCommon } from './common'
import { exitCodes, failWith, failure } from './exit'
import type { ExitCode } from './exit'
import { formatTable } from './io'
import type { CliIo } from './io'
import { liveMarked, paymentsFor, withBusiness } from './payments-common'
import type { PaymentsOptions } from './payments-common'

export function registerWallets(program: Command, ctx: CliContext): void {
  const wallets = withBusiness(withCommon(program.command('wallets')))
    .description(
      'GET /v1/wallets for the business (--business, selectedBusinessId or WATCHDESK_BUSINESS_ID) with the active key. The fields present become columns; --json prints the answer as the service sent it.',
    )
    .action(async (options: PaymentsOptions) => ctx.exit(await runWallets(options, ctx.io, ctx.deps)))
  example(wallets, 'watchdesk wallets --business biz_8f2c', 'watchdesk wallets --json')
}

async function runWallets(options: PaymentsOptions, plainIo: CliIo, deps: CliDeps): Promise<ExitCode> {
  const service = paymentsFor(options, plainIo, deps)
  if (!service.ok) return failure(plainIo, 'wallets', service.error.message, configExit(service.error))
  const status = await service.value.status()
  const io = liveMarked(plainIo, status.ok && status.value.live, options.json)
  const wallets = await service.value.wallets()
  if (!wallets.ok) return failWith(io, 'wallets', wallets.error)
  const w = wallets.value
  if (options.json) {
    io.out(JSON.stringify(w.raw, null, 2))
    return w.shapeProblem ? exitCodes.problem : exitCodes.ok
  }
  if (w.shapeProblem) {
    io.err(`watchdesk wallets: ${w.shapeProblem}`)
    io.out(JSON.stringify(w.raw, null, 2))
    return exitCodes.problem
  }
  io.out(
    `business ${w.businessId ?? '(none selected)'} · ${w.rows.length} wallet${w.rows.length === 1 ? '' : 's'}`,
  )
  if (w.rows.length > 0) {
    io.out(
      formatTable(
        w.columns.map((c) => c.key),
        w.rows.map((r) => r.map((c) => c.text)),
        w.columns.map((c) => c.kind === 'amount'),
      ),
    )
  }
  return exitCodes.ok
}

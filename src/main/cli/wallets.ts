import { parseCommandArgs } from './args'
import type { CliIo } from './io'
import { paymentsFor } from './payments-common'
import { formatTable } from './io'
import type { PaymentsCliDeps } from './payments-common'

export const walletsUsage = `watchdesk wallets [--json]
  GET /v1/wallets for the selected business (selectedBusinessId, or WATCHDESK_BUSINESS_ID) with the
  active key. The fields present become columns; --json prints the answer as the service sent it.`

export async function walletsCommand(argv: string[], io: CliIo, deps: PaymentsCliDeps = {}): Promise<number> {
  const args = parseCommandArgs(argv, {})
  if (!args.ok) return fail(io, args.error.message)
  const service = paymentsFor(args.value, io, deps)
  if (!service.ok) return fail(io, service.error.message)
  const wallets = await service.value.wallets()
  if (!wallets.ok) return fail(io, wallets.error.message)
  const w = wallets.value
  if (args.value.values.json) {
    io.out(JSON.stringify(w.raw, null, 2))
    return w.shapeProblem ? 1 : 0
  }
  if (w.shapeProblem) {
    io.err(`watchdesk wallets: ${w.shapeProblem}`)
    io.out(JSON.stringify(w.raw, null, 2))
    return 1
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
  return 0
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk wallets: ${message}`)
  return 1
}

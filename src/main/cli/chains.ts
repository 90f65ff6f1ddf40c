import { alarmStatuses, statusLabel } from '../../shared/chains/health'
import type { ChainStatus } from '../../shared/contract/chains'
import { loadConfig, resolveDataDir } from '../config'
import { pollerFor, readProjectUid } from '../chains'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { parseCommandArgs } from './args'
import { formatTable } from './io'
import type { CliIo } from './io'

export const chainsUsage = `watchdesk chains [--config FILE] [--data-dir DIR] [--json]
  One round of checks over all twelve networks: status, head, block age, lag, latency, node identity.
  --json: one JSON object per chain. Exits 1 when an enabled chain is down, stalled or on the wrong network.`

export async function chainsCommand(argv: string[], io: CliIo, secrets?: SecretStore): Promise<number> {
  const args = parseCommandArgs(argv, {})
  if (!args.ok) return fail(io, args.error.message)
  const dataDir = resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env)
  const loaded = loadConfig(dataDir, args.value.values.config as string | undefined)
  if (!loaded.ok) return fail(io, loaded.error.message)
  const { uid, problem } = await readProjectUid(
    secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env),
  )
  const poller = pollerFor(loaded.value.config, uid, undefined, problem, undefined, true)
  let chains: ChainStatus[]
  try {
    chains = (await poller.pollRound()).chains
  } finally {
    poller.stop()
  }
  if (args.value.values.json) {
    for (const chain of chains) io.out(JSON.stringify(chain))
  } else {
    io.out(
      formatTable(
        [
          'chain',
          'id',
          'status',
          'head',
          'age s',
          'lag blocks',
          'lag s',
          'latency ms',
          'client',
          'net',
          'detail',
        ],
        chains.map((c) => [
          c.name,
          c.serviceId,
          statusLabel[c.status],
          c.head,
          c.blockAgeSeconds,
          c.lagBlocks === null ? null : `${c.lagEstimated ? '~' : ''}${c.lagBlocks}`,
          c.lagSeconds,
          c.latencyMs === null ? null : Math.round(c.latencyMs),
          c.clientVersion,
          c.netVersion,
          c.status === 'healthy' ? (c.endpoint ?? '') : c.reason,
        ]),
      ),
    )
    if (chains.some((c) => c.lagEstimated && c.lagBlocks !== null)) {
      io.out('~ lag estimated from block age and block time (no referenceUrl configured)')
    }
  }
  const alarms = chains.filter((c) => alarmStatuses.includes(c.status))
  return alarms.length > 0 ? 1 : 0
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk chains: ${message}`)
  return 2
}

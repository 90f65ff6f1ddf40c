import { formatClock } from '../../shared/time'
import { alarmStatuses, statusLabel } from '../../shared/chains/health'
import type { Config } from '../../shared/config'
import type { ChainStatus } from '../../shared/contract/chains'
import { pollerFor, readProjectUid } from '../chains'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { CliDeps } from './common'
import { configFor } from './common'
import { exitCodes, failure } from './exit'
import type { ExitCode } from './exit'
import { formatTable, pause } from './io'
import type { CliIo } from './io'
import type { CommonOptions } from './declare'

/** What `watchdesk chains` does; its declaration (./chains.ts) imports this when it runs. */

export interface ChainsOptions extends CommonOptions {
  watch?: boolean
  sources?: boolean
  interval?: number
  /** Only these chains (service ids), in the table, the JSON and the exit code. */
  chain?: number[]
}

export async function runChains(options: ChainsOptions, io: CliIo, deps: CliDeps): Promise<ExitCode> {
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'chains', loaded.error.message, loaded.error.exit)
  const config = loaded.value.config
  const { uid, problem } = await readProjectUid(
    deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env),
  )
  const poller = pollerFor(config, uid, undefined, problem, undefined, !options.watch)
  const interrupted: { value: boolean; wake?: () => void } = { value: false }
  const stopListening = options.watch
    ? io.onInterrupt?.(() => {
        interrupted.value = true
        interrupted.wake?.()
      })
    : undefined
  try {
    for (;;) {
      const polled = (await poller.pollRound()).chains
      const chains = options.chain ? polled.filter((c) => options.chain!.includes(c.serviceId)) : polled
      if (interrupted.value) return exitCodes.ok
      const code = report(chains, config, uid, problem, options, io)
      if (!options.watch) return code
      if (await pause(options.interval ?? config.pollIntervalMs, interrupted)) return exitCodes.ok
    }
  } finally {
    stopListening?.dispose()
    poller.stop()
  }
}

function report(
  chains: ChainStatus[],
  config: Config,
  uid: string | null,
  uidProblem: string | null,
  options: ChainsOptions,
  io: CliIo,
): ExitCode {
  const monitored = chains.filter((c) => c.status !== 'not_configured')
  const why = monitored.length === 0 ? nothingMonitored(chains, config, uid, uidProblem) : null
  if (options.json) {
    // One write: a reader that stops after the first line (head -1) ends us between rounds.
    const rows = options.sources ? monitored.map(sourcesRow) : chains
    io.out(rows.map((row) => JSON.stringify(row)).join('\n'))
  } else if (!why) {
    const lines = options.sources ? sourcesLines(monitored) : [table(chains)]
    if (!options.sources && chains.some((c) => c.lagEstimated && c.lagBlocks !== null))
      lines.push(
        '~ lag estimated from block age and block time (no reference configured, or none passes its checks: watchdesk chains --sources)',
      )
    if (options.watch) {
      lines.unshift(`watchdesk chains · ${formatClock(Date.now())} · Ctrl-C ends`)
      // Redraw in place on a terminal; a plain stream (a file, a pipe) gets one block per round.
      if (io.isTTY) io.clearScreen?.()
      io.out(lines.join('\n') + (io.isTTY ? '' : '\n'))
    } else io.out(lines.join('\n'))
  }
  if (why) {
    io.err(`watchdesk chains: no chain is monitored. ${why.sentence}`)
    return why.code
  }
  return chains.some((c) => alarmStatuses.includes(c.status)) ? exitCodes.problem : exitCodes.ok
}

/** The one reason no chain is polled, said once rather than on every row. */
function nothingMonitored(
  chains: ChainStatus[],
  config: Config,
  uid: string | null,
  uidProblem: string | null,
): { sentence: string; code: ExitCode } {
  const enabled = Object.values(config.chains).filter((c) => c.enabled !== false).length
  if (chains.length > 0 && Object.keys(config.chains).length >= chains.length && enabled === 0)
    return {
      sentence: 'Every chain is disabled in the config (chains.<id>.enabled is false).',
      code: exitCodes.problem,
    }
  if (!config.rpcBaseUrl)
    return {
      sentence:
        'rpcBaseUrl is not set and no chain has its own url: watchdesk config set rpcBaseUrl https://… then watchdesk project-uid set.',
      code: exitCodes.problem,
    }
  if (!uid && uidProblem)
    return { sentence: `The project uid could not be read: ${uidProblem}`, code: exitCodes.cannotRun }
  if (!uid)
    return {
      sentence: 'The project uid is not stored: watchdesk project-uid set (or set WATCHDESK_PROJECT_UID).',
      code: exitCodes.problem,
    }
  const reasons = [...new Set(chains.map((c) => c.reason).filter(Boolean))]
  return { sentence: reasons.join(' '), code: exitCodes.problem }
}

/** "12.3 s · 6 blk": the head block's age in seconds and in blocks of the measured block time. */
function blockAge(c: ChainStatus): string | null {
  if (c.blockAgeSeconds === null) return null
  return `${c.blockAgeSeconds} s · ${Math.round((c.blockAgeSeconds * 1000) / c.blockTimeMs)} blk`
}

/** "~20 blk · 40 s": behind the corroborated head (~ estimated), in blocks and in seconds. */
function lag(c: ChainStatus): string | null {
  if (c.lagBlocks === null) return null
  return `${c.lagEstimated ? '~' : ''}${c.lagBlocks} blk · ${c.lagSeconds ?? '?'} s`
}

function table(chains: ChainStatus[]): string {
  return formatTable(
    ['chain', 'id', 'status', 'head', 'block age', 'lag', 'latency ms', 'client', 'net', 'detail'],
    chains.map((c) => [
      c.name,
      c.serviceId,
      statusLabel[c.status],
      c.head,
      blockAge(c),
      lag(c),
      c.latencyMs === null ? null : Math.round(c.latencyMs),
      c.clientVersion,
      c.netVersion,
      c.status === 'healthy' ? (c.endpoint ?? '') : c.reason,
    ]),
  )
}

/** `--sources --json`: one line per polled chain, its corroborated head and every source. */
function sourcesRow(c: ChainStatus) {
  const { serviceId, name, status, head, lagBlocks, lagSeconds, lagEstimated, corroboration, sources } = c
  return { serviceId, name, status, head, lagBlocks, lagSeconds, lagEstimated, corroboration, sources }
}

/** `--sources`: every source of every polled chain; an excluded reference is a line of
 * information (the chain's own status is not changed by it), the disagreement a note. */
function sourcesLines(chains: ChainStatus[]): string[] {
  const rows = chains.flatMap((c) =>
    c.sources.map((s) => [
      c.name,
      s.name,
      s.state === 'excluded' ? `excluded: ${s.reason?.replace('_', ' ')}` : s.state,
      s.head,
      s.distance === null ? null : s.distance > 0 ? `+${s.distance}` : s.distance,
      s.latencyMs === null ? null : Math.round(s.latencyMs),
      `${s.errors + s.rateLimited}/${s.polls}`,
      s.since && s.state !== 'checking' ? s.since.slice(11, 19) : null,
      s.endpoint,
      s.detail,
    ]),
  )
  const lines = [
    formatTable(
      [
        'chain',
        'source',
        'state',
        'head',
        'distance',
        'latency ms',
        'errors/polls 15m',
        'since (UTC)',
        'endpoint',
        'why',
      ],
      rows,
      [false, false, false, true, true, true, true, false, false, false],
    ),
  ]
  for (const c of chains)
    if (c.corroboration.state !== 'corroborated') lines.push(`${c.name}: ${c.corroboration.note}`)
  return lines
}

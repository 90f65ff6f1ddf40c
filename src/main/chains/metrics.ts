import { Counter, Gauge, Histogram } from 'prom-client'
import type { Registry } from 'prom-client'
import type { ChainsSnapshot } from '../../shared/contract/chains'
import type { Disposable } from '../../shared/disposable'
import { chainStatuses } from '../../shared/chains/health'
import { RpcErrorInfo } from '../../shared/contract/chains'

/** `GET /metrics`: the chains' figures the console shows, read at scrape time from their status,
 * and the polls counted per round. */
export function registerChainMetrics(
  registry: Registry,
  service: {
    snapshot(): ChainsSnapshot
    onRound(listener: (snapshot: ChainsSnapshot) => void): Disposable
  },
): void {
  const registers = [registry]
  const chains = () => service.snapshot().chains.filter((c) => c.status !== 'not_configured')
  const perChain = (
    name: string,
    help: string,
    read: (c: ReturnType<typeof chains>[number]) => number | null,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'name'],
      registers,
      collect() {
        this.reset()
        for (const c of chains()) {
          const v = read(c)
          if (v !== null) this.set({ chain: String(c.serviceId), name: c.name }, v)
        }
      },
    })
  perChain('watchdesk_chain_head', 'Head block height', (c) => c.head)
  perChain(
    'watchdesk_chain_lag_blocks',
    'Blocks behind the chain head (estimated without a reference node)',
    (c) => c.lagBlocks,
  )
  perChain('watchdesk_chain_lag_seconds', 'Seconds behind the chain head', (c) => c.lagSeconds)
  perChain(
    'watchdesk_chain_block_age_seconds',
    'Now minus the head block timestamp (or since the head last advanced)',
    (c) => c.blockAgeSeconds,
  )
  perChain(
    'watchdesk_chain_block_age_blocks',
    'The head block age in blocks of the measured block time',
    (c) => (c.blockAgeSeconds === null ? null : Math.round((c.blockAgeSeconds * 1000) / c.blockTimeMs)),
  )
  perChain('watchdesk_chain_block_time_seconds', 'Measured time between blocks', (c) => c.blockTimeMs / 1000)
  perChain(
    'watchdesk_chain_halted',
    '1 while the node and every reference stand at one old height (the chain halted, not the node)',
    (c) => (c.status === 'not_configured' ? null : c.status === 'halted' ? 1 : 0),
  )
  perChain(
    'watchdesk_chain_finalized_lag_blocks',
    'Blocks between the head and the finalized block',
    (c) => c.finalized.lagBlocks,
  )
  perChain(
    'watchdesk_chain_finalized_lag_seconds',
    'Seconds between the head and the finalized block',
    (c) => c.finalized.lagSeconds,
  )
  perChain(
    'watchdesk_chain_safe_lag_blocks',
    'Blocks between the head and the safe block',
    (c) => c.safe.lagBlocks,
  )
  perChain('watchdesk_chain_latency_seconds', 'Round trip of the last poll', (c) =>
    c.latencyMs === null ? null : c.latencyMs / 1000,
  )
  perChain('watchdesk_chain_up', '1 unless down, stalled or on the wrong network (confirmed)', (c) =>
    c.status === 'down' || c.status === 'stalled' || c.status === 'wrong_network' ? 0 : 1,
  )
  perChain('watchdesk_chain_peers', 'net_peerCount, where the node allows it', (c) => c.peers)
  perChain(
    'watchdesk_chain_sources_counted',
    'Sources (the service node and its references) whose head counts in the corroborated head',
    (c) => (c.status === 'not_configured' ? null : c.sources.filter((s) => s.state === 'counted').length),
  )
  perChain('watchdesk_chain_sources_disagree', '1 while the sources of the chain disagree', (c) =>
    c.status === 'not_configured' ? null : c.corroboration.state === 'disagree' ? 1 : 0,
  )
  new Counter({
    name: 'watchdesk_chain_reorgs_total',
    help: 'Reorganisations seen since start',
    labelNames: ['chain', 'name'],
    registers,
    collect() {
      this.reset()
      for (const c of chains()) this.inc({ chain: String(c.serviceId), name: c.name }, c.reorgs)
    },
  })
  registerPollMeters(
    registers,
    (listener) => service.onRound(listener),
    () => service.snapshot(),
  )
  new Gauge({
    name: 'watchdesk_chain_status',
    help: 'The status of each chain: 1 for its current status, 0 for the others',
    labelNames: ['chain', 'name', 'status'],
    registers,
    collect() {
      this.reset()
      for (const c of chains())
        for (const s of chainStatuses)
          if (s !== 'not_configured')
            this.set({ chain: String(c.serviceId), name: c.name, status: s }, c.status === s ? 1 : 0)
    },
  })
}

const pollErrorKinds = RpcErrorInfo.shape.kind.options

/** Polls as Prometheus expects them: counters of polls, errors (by kind) and HTTP 429s since
 * start, and a latency histogram in seconds, so rates and quantiles come from PromQL over any
 * window and across instances. Fed by each poll round: a chain counts once per new `checkedAt`. */
function registerPollMeters(
  registers: Registry[],
  onRound: (listener: (snapshot: ChainsSnapshot) => void) => Disposable,
  /** The chains now: a round that ended before these meters existed (the poller starts first) is
   * counted too, or the first poll of a fast node would be missing until the next round. */
  current: () => ChainsSnapshot,
): void {
  const labelNames = ['chain', 'name'] as const
  const polls = new Counter({
    name: 'watchdesk_chain_polls_total',
    help: 'Polls of the service node since start',
    labelNames,
    registers,
    // A scrape also takes the polls finished since the last round was told (each counts once,
    // by its checkedAt), so a poll that a status already shows is never missing from the counters.
    collect: () => count(current()),
  })
  const errors = new Counter({
    name: 'watchdesk_chain_poll_errors_total',
    help: 'Failed polls since start, by kind (rpc, http, timeout, network, malformed); HTTP 429 apart',
    labelNames: [...labelNames, 'kind'],
    registers,
  })
  const rateLimited = new Counter({
    name: 'watchdesk_chain_rate_limited_total',
    help: 'Polls answered HTTP 429 since start',
    labelNames,
    registers,
  })
  const latency = new Histogram({
    name: 'watchdesk_chain_poll_seconds',
    help: 'Round trip of answered polls',
    labelNames,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  const seen = new Map<number, string>()
  const count = (snapshot: ChainsSnapshot) => {
    for (const c of snapshot.chains) {
      if (c.status === 'not_configured' || c.checkedAt === null || seen.get(c.serviceId) === c.checkedAt)
        continue
      const labels = { chain: String(c.serviceId), name: c.name }
      // A polled chain's error and 429 series start at 0, so a rate over them (a dashboard panel,
      // an alert rule) reads 0 before the first failure rather than no data.
      if (!seen.has(c.serviceId)) {
        rateLimited.inc(labels, 0)
        for (const kind of pollErrorKinds) errors.inc({ ...labels, kind }, 0)
      }
      seen.set(c.serviceId, c.checkedAt)
      polls.inc(labels)
      if (c.error?.kind === 'http' && c.error.code === 429) rateLimited.inc(labels)
      else if (c.error) errors.inc({ ...labels, kind: c.error.kind })
      else if (c.latencyMs !== null) latency.observe(labels, c.latencyMs / 1000)
    }
  }
  count(current())
  onRound(count)
}

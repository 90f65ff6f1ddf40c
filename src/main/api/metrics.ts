import { Counter, Gauge } from 'prom-client'
import { chainStatuses } from '../../shared/chains/health'
import type { AppContext } from '../context'
import type { Services } from '../services'
import { registerListenerTotals, registerStorageOk } from '../meters'

/** `GET /metrics` (Prometheus text format): the figures the console shows, read at scrape time
 * from each capability's status, plus what the listener observes as it happens (ctx.meters). */
export function metricsFor(ctx: AppContext, services: Services): () => Promise<string> {
  const registers = [ctx.meters.registry]
  const chains = () => services.chains.snapshot().chains.filter((c) => c.status !== 'not_configured')
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
  perChain('watchdesk_chain_latency_p95_seconds', 'p95 poll latency over 15 minutes', (c) =>
    c.quality.p95Ms === null ? null : c.quality.p95Ms / 1000,
  )
  perChain('watchdesk_chain_up', '1 unless down, stalled or on the wrong network (confirmed)', (c) =>
    c.status === 'down' || c.status === 'stalled' || c.status === 'wrong_network' ? 0 : 1,
  )
  perChain(
    'watchdesk_chain_poll_errors',
    'Failed polls over the last 15 minutes (HTTP 429 apart)',
    (c) => c.quality.errors,
  )
  perChain(
    'watchdesk_chain_rate_limited',
    'Polls answered HTTP 429 over the last 15 minutes',
    (c) => c.quality.rateLimited,
  )
  perChain('watchdesk_chain_polls', 'Polls over the last 15 minutes', (c) => c.quality.polls)
  perChain('watchdesk_chain_peers', 'net_peerCount, where the node allows it', (c) => c.peers)
  perChain('watchdesk_chain_reorgs', 'Reorganisations seen since start', (c) => c.reorgs)
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
  registerListenerTotals(ctx.meters, () => services.webhooks.status())
  registerStorageOk(ctx.meters, () => ctx.storage.status().state === 'ok')
  // Labelled so that, without the forward capability, they have no sample rather than a made-up 0.
  new Gauge({
    name: 'watchdesk_forward_queue_depth',
    help: 'Events waiting to be forwarded (no sample without the forward capability)',
    labelNames: ['capability'],
    registers,
    collect() {
      this.reset()
      const read = ctx.meters.forward.queueDepth
      if (read) this.set({ capability: 'forward' }, read())
    },
  })
  new Counter({
    name: 'watchdesk_forward_failures_total',
    help: 'Failed forward attempts (no sample without the forward capability)',
    labelNames: ['capability'],
    registers,
    collect() {
      this.reset()
      const read = ctx.meters.forward.failures
      if (read) this.inc({ capability: 'forward' }, read())
    },
  })
  new Gauge({
    name: 'watchdesk_incidents_open',
    help: 'Open alert incidents',
    registers,
    collect() {
      const r = services.alerts.incidents({ open: true, limit: 1000 })
      this.set(r.ok ? r.value.length : 0)
    },
  })
  return () => ctx.meters.registry.metrics()
}

import { create } from 'zustand'
import type { ChainHistory, ChainStatus, ChainsSnapshot, RpcExchange } from '../../../shared/contract/chains'
import type { ResponseOf } from '../../../shared/contract'
import type { Disposable } from '../../../shared/disposable'
import type { ApiError } from '../../../shared/result'
import { backend } from '../api'

export type ChainInfo = ResponseOf<'chains.registry'>['chains'][number]

/** The twelve statuses, kept live by the `chains.status` push (the renderer never polls), and the
 * last hour of lag and latency per chain for the row sparklines. */

export interface SparkPoint {
  t: number
  lagSeconds: number | null
  latencyMs: number | null
}

const hourMs = 60 * 60_000

interface ChainsState {
  /** The registry comes from the back end, so the renderer bundle carries no chain library. */
  registry: ChainInfo[]
  snapshot: ChainsSnapshot | null
  error: ApiError | null
  spark: Record<number, SparkPoint[]>
  selected: number | null
  history: ChainHistory | null
  load(): Promise<void>
  /** Follows the `chains.status` push; the app owns the subscription for the page's lifetime. */
  attach(): Disposable
  /** After the back end came back: statuses and history may have moved on. */
  resync(): void
  select(serviceId: number | null): void
  loadHistory(serviceId: number): Promise<void>
  send(
    serviceId: number,
    method: string,
    params: unknown[],
  ): Promise<{ ok: true; value: RpcExchange } | { ok: false; error: ApiError }>
}

function appendPoints(
  spark: Record<number, SparkPoint[]>,
  chains: ChainStatus[],
  at: number,
): Record<number, SparkPoint[]> {
  const next = { ...spark }
  for (const c of chains) {
    if (c.checkedAt === null) continue
    const t = Date.parse(c.checkedAt)
    const points = next[c.serviceId] ?? []
    if (points.length > 0 && points[points.length - 1]!.t >= t) continue
    const point = { t, lagSeconds: c.error ? null : c.lagSeconds, latencyMs: c.latencyMs }
    next[c.serviceId] = [...points.filter((p) => p.t > at - hourMs), point]
  }
  return next
}

export const useChainsStore = create<ChainsState>((set, get) => ({
  registry: [],
  snapshot: null,
  error: null,
  spark: {},
  selected: null,
  history: null,
  attach: () =>
    backend().onPush('chains.status', (snapshot) => {
      set((s) => ({
        snapshot,
        error: null,
        spark: appendPoints(s.spark, snapshot.chains, Date.parse(snapshot.at)),
      }))
      const { selected } = get()
      if (selected !== null && snapshot.chains.some((c) => c.serviceId === selected && c.checkedAt))
        void get().loadHistory(selected)
    }),
  resync() {
    if (get().snapshot || get().error) void get().load()
  },
  async load() {
    if (get().registry.length === 0) {
      const registry = await backend().call('chains.registry', {})
      if (registry.ok) set({ registry: registry.value.chains })
    }
    const listed = await backend().call('chains.list', {})
    if (!listed.ok) {
      set({ error: listed.error })
      return
    }
    set({ snapshot: listed.value, error: null })
    const polled = listed.value.chains.filter((c) => c.status !== 'not_configured')
    const histories = await Promise.all(
      polled.map((c) => backend().call('chains.history', { serviceId: c.serviceId, minutes: 60 })),
    )
    const spark: Record<number, SparkPoint[]> = { ...get().spark }
    for (const h of histories) {
      if (!h.ok) continue
      const seeded = h.value.points.map((p) => ({ t: p.t, lagSeconds: p.lagSeconds, latencyMs: p.latencyMs }))
      const live = (spark[h.value.serviceId] ?? []).filter((p) => p.t > (seeded.at(-1)?.t ?? 0))
      spark[h.value.serviceId] = [...seeded, ...live]
    }
    set({ spark })
  },
  select(serviceId) {
    set({ selected: serviceId, history: null })
    if (serviceId !== null) void get().loadHistory(serviceId)
  },
  async loadHistory(serviceId) {
    const result = await backend().call('chains.history', { serviceId, minutes: 60 })
    if (result.ok && get().selected === serviceId) set({ history: result.value })
  },
  send: (serviceId, method, params) =>
    backend().call('chains.rpc', { serviceId, method: method as never, params }),
}))

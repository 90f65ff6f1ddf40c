import type { PollClock } from '../../shared/clock'
import { systemPollClock } from '../../shared/clock'
import type { ListenerStatus } from '../../shared/contract/events'
import type { PublicUrlState } from '../../shared/contract/payments'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { ServiceMetrics } from '../contribution'
import { startDisablementWatch } from './watch'
import type { DisablementCondition, DisablementWatch } from './watch'

export { startDisablementWatch } from './watch'
export type { DisablementWatch, DisablementDeps, DisablementCondition } from './watch'
export { forecast, joinSpans, exhaustedFirstAttempts, ladderMs, joinGapMs } from './forecast'
export type { DownSpan, Forecast } from './forecast'
export { createOutageStore, keepOutagesMs } from './store'
export type { OutageStore } from './store'

/** What the watch reads from the other capabilities, handed over where they meet (services.ts). */
export interface DisablementLinks {
  clock?: PollClock
  listener(): ListenerStatus | null
  publicUrl(): PublicUrlState
  listEndpoints(): Promise<Result<{ endpoints: { id: string; status: string | null }[] }>>
  observe(condition: DisablementCondition): void
}

/** The console's watch, with its figures for `/metrics`. */
export type ConsoleDisablementWatch = DisablementWatch & ServiceMetrics

/** The endpoint-disablement watch over the console's database, its push and /metrics. */
export function startDisablement(
  ctx: Pick<AppContext, 'db' | 'log' | 'config' | 'onConfigChange' | 'push' | 'committed' | 'storage'>,
  links: DisablementLinks,
): ConsoleDisablementWatch {
  const watch = startDisablementWatch({
    ...links,
    db: ctx.db,
    clock: links.clock ?? systemPollClock,
    log: ctx.log.child({ capability: 'disablement' }),
    publicUrlSet: () => Boolean(ctx.config().listener.publicUrl),
    leadMs: () => ctx.config().alerts.disablementLeadMinutes * 60_000,
    committed: ctx.committed,
    publish: (status) => ctx.push.publish('disablement.status', status),
    storageFailed: (where, error) => ctx.storage.failed(where, error),
  })
  // The public URL turning unreachable (or back) is looked at at once, not at the next 30 s look.
  const offPublicUrl = ctx.push.subscribe((message) => {
    if (message.topic === 'payments.publicUrl') void watch.checkNow()
  })
  // A new lead (alerts.disablementLeadMinutes, a hand edit too) or public URL is applied at once:
  // the status must not show the old lead, nor miss a warning the new one calls for, until the next look.
  const offConfig = ctx.onConfigChange(() => void watch.checkNow())
  return {
    ...watch,
    metrics: async (registry) =>
      (await import('./metrics')).registerDisablementMetrics(registry, () => watch),
    dispose: () => (offConfig.dispose(), offPublicUrl.dispose(), watch.dispose()),
  }
}
export { readDisablement } from './read'
export { contribution } from './contribution'

import type { AppContext } from '../context'
import type { TimeReferences } from '../../shared/time-references'
import { createPaymentsService } from './service'
import type { PaymentsService } from './service'

export { createPaymentsService } from './service'
export type { PaymentsService, PaymentsDeps } from './service'
export { createPaymentsClient, retryAfterMs } from './client'
export type { PaymentsClient, PaymentsRequest, PaymentsResponse, ApiKey } from './client'
export { createLimiter } from './limiter'
export type { Limiter } from './limiter'
export { systemClock, virtualClock } from './pace-clock'
export type { Clock } from './pace-clock'
export { standalonePayments } from './standalone'

/** The app's payments service: the context's config, keychain and log; rate-limit state is pushed. */
export function startPayments(
  ctx: AppContext,
  env: NodeJS.ProcessEnv,
  /** The clock guard's port: each answer's HTTP Date goes there. */
  timeRefs?: TimeReferences,
): PaymentsService {
  return createPaymentsService({
    config: () => ctx.config(),
    savedConfig: () => ctx.loadedConfig().saved,
    saveConfig: (next) => ctx.saveConfig(next),
    secrets: ctx.secrets,
    log: ctx.log,
    env,
    onRateLimit: (state) => ctx.push.publish('payments.rateLimit', state),
    onDate:
      timeRefs && ((localMs, date) => timeRefs.observe({ kind: 'http_date', source: 'api', localMs, date })),
  })
}
export { contribution } from './contribution'

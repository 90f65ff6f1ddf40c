import { ok } from '../../shared/result'
import type { clockMethods } from '../../shared/contract/clock'
import type { ApiHandlers } from '../transport/dispatch'
import type { Services } from '../services'

export function clockApi(services: Services): Pick<ApiHandlers, keyof typeof clockMethods> {
  return { 'clock.status': async () => ok(services.clock.status()) }
}

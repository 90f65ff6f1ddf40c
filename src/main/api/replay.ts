import type { replayMethods } from '../../shared/contract/replay'
import { ok } from '../../shared/result'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

export function replayApi(services: Services): Pick<ApiHandlers, keyof typeof replayMethods> {
  return { 'replay.status': async () => ok(services.replay.status()) }
}

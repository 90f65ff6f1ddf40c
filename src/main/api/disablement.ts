import type { disablementMethods } from '../../shared/contract/disablement'
import { ok } from '../../shared/result'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

export function disablementApi(services: Services): Pick<ApiHandlers, keyof typeof disablementMethods> {
  return {
    'disablement.status': async () => ok(services.disablement.status()),
  }
}

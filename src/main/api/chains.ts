import { ok } from '../../shared/result'
import { chainRegistry } from '../../shared/chains/registry'
import type { chainsMethods } from '../../shared/contract/chains'
import type { AppContext } from '../context'
import type { ApiHandlers } from '../transport/dispatch'
import type { Services } from '../services'

export function chainsApi(
  _ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof chainsMethods> {
  const { chains } = services
  return {
    'chains.registry': async () => ok({ chains: [...chainRegistry] }),
    'chains.list': async () => ok(chains.snapshot()),
    'chains.history': async ({ serviceId, minutes }) => chains.history(serviceId, minutes),
    'chains.rpc': async ({ serviceId, method, params }) => chains.rpc(serviceId, method, params),
  }
}

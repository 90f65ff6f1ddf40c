import { ok } from '../../shared/result'
import { chainRegistry } from '../../shared/chains/registry'
import type { chainsMethods } from '../../shared/contract/chains'
import { maskConfigSecrets } from '../../shared/config-secrets'
import { maskNodeUrls } from '../../shared/mask'
import { readProjectUid, uidScrubber } from '../chains'
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

/** The effective config as `settings.get` returns it: every credential masked by the one rule
 * (src/shared/config-secrets.ts: header values, URL userinfo, credential-named query parameters),
 * node URLs masked as the Chains view shows them, and the project uid nowhere, wherever an
 * operator may have written it. */
export async function configAsShown(ctx: AppContext): Promise<Record<string, unknown>> {
  const { uid } = await readProjectUid(ctx.secrets)
  const masked = maskNodeUrls(maskConfigSecrets(ctx.loadedConfig().config))
  return JSON.parse(uidScrubber(uid)(JSON.stringify(masked))) as Record<string, unknown>
}

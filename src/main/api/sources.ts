import type { sourcesMethods } from '../../shared/contract/sources'
import { ok } from '../../shared/result'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

export function sourcesApi(services: Services): Pick<ApiHandlers, keyof typeof sourcesMethods> {
  const { sources } = services
  return {
    'sources.list': async () => ok({ sources: sources.list() }),
    'sources.add': async ({ name, url, token }) => sources.add(name, url, token),
    'sources.remove': async ({ name }) => sources.remove(name),
    'sources.test': async (target) => sources.test(target),
    'sources.listener': async ({ name }) => sources.listener(name),
  }
}

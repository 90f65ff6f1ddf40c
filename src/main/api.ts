import type { AppContext } from './context'
import type { ApiHandlers } from './transport/dispatch'
import { appApi } from './api/app'
import type { Services } from './services'

/** Implements the contract. The only place where capabilities meet: each section in ./api/ maps
 * its methods onto one capability's services; `satisfies` fails the build if a method is missing. */
export function createApi(ctx: AppContext, _services: Services): ApiHandlers {
  return {
    ...appApi(ctx),
  } satisfies ApiHandlers
}

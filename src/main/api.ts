import type { AppContext } from './context'
import type { ApiHandlers } from './transport/dispatch'
import { appApi } from './api/app'
import { eventsApi } from './api/events'
import { chainsApi } from './api/chains'
import type { Services } from './services'
import { paymentsApi } from './api/payments'
import { storageApi } from './api/storage'
import { alertsApi } from './api/alerts'
import { sourcesApi } from './api/sources'
import { forwardApi } from './api/forward'
import { settingsApi } from './api/settings'
import { doctorApi } from './api/doctor'
import { replayApi } from './api/replay'
import { driftApi } from './api/drift'
import { clockApi } from './api/clock'
import { disablementApi } from './api/disablement'

/** Implements the contract. The only place where capabilities meet: each section in ./api/ maps
 * its methods onto one capability's services; `satisfies` fails the build if a method is missing. */
export function createApi(ctx: AppContext, services: Services): ApiHandlers {
  return {
    ...appApi(ctx, services),
    ...eventsApi(ctx, services),
    ...chainsApi(ctx, services),
    ...paymentsApi(ctx, services),
    ...storageApi(ctx),
    ...alertsApi(ctx, services),
    ...sourcesApi(services),
    ...forwardApi(ctx, services),
    ...settingsApi(ctx, services),
    ...doctorApi(ctx, services),
    ...replayApi(services),
    ...driftApi(ctx, services),
    ...clockApi(services),
    ...disablementApi(services),
  } satisfies ApiHandlers
}

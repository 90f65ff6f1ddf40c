import { ok } from '../shared/result'
import type { Result } from '../shared/result'
import type { AppContext } from './context'

/** The long-running parts of each capability (listener, poller, payments client). Each capability
 * adds its field here and starts it in `startServices`; api.ts maps contract methods onto them. */
export interface Services {
  /** Stand-in so the interface is never empty; capabilities add real fields beside it. */
  readonly startedAt: Date
}

export interface StartedServices {
  services: Services
  stop(): Promise<void>
}

export interface ServiceOptions {
  /** `--listener-port`, over `listener.port` from the config. */
  listenerPort?: number
}

export async function startServices(ctx: AppContext, _options: ServiceOptions): Promise<Result<StartedServices>> {
  const stops: (() => Promise<void>)[] = []
  const services: Services = { startedAt: ctx.startedAt }
  return ok({
    services,
    stop: async () => {
      for (const stop of stops.reverse()) await stop()
    },
  })
}

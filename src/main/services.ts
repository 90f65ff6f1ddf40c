import { ok } from '../shared/result'
import type { Result } from '../shared/result'
import type { AppContext } from './context'
import { startWebhooks } from './webhooks'
import type { WebhookService } from './webhooks'
import { startChainsService } from './chains'
import type { ChainsService } from './chains'
import { startPayments } from './payments'
import type { PaymentsService } from './payments'
import { startPublicUrlWatch } from './webhooks/public-url-watch'
import type { PublicUrlWatch } from './webhooks/public-url-watch'

/** The long-running parts of each capability (listener, poller, payments client), started in
 * `startServices` and stopped in reverse order; api.ts maps contract methods onto them. */
export interface Services {
  /** Webhook listener and the events store (issue 3). */
  webhooks: WebhookService
  /** Poller of the twelve networks, health and history (issue 4). */
  chains: ChainsService
  /** Keys, businesses, wallets, webhook endpoints over the one payments client (issue 5). */
  payments: PaymentsService
  /** listener.publicUrl re-checked periodically: does it reach this listener (issue 10)? */
  publicUrl: PublicUrlWatch
  /** The process environment (NODE_EXTRA_CA_CERTS for the public URL's checks). */
  env: NodeJS.ProcessEnv
}

export interface StartedServices {
  services: Services
  stop(): Promise<void>
}

export interface ServiceOptions {
  /** `--listener-port`, over `listener.port` from the config. */
  listenerPort?: number
  /** The process environment (WATCHDESK_BUSINESS_ID). */
  env?: NodeJS.ProcessEnv
}

export async function startServices(
  ctx: AppContext,
  options: ServiceOptions,
): Promise<Result<StartedServices>> {
  const stops: (() => Promise<void>)[] = []
  // Never fails the start: a listener that cannot bind is reported in its status.
  const webhooks = await startWebhooks(ctx, { port: options.listenerPort })
  stops.push(() => webhooks.stop())
  const chains = await startChainsService(ctx)
  stops.push(() => chains.stop())
  const env = options.env ?? process.env
  const payments = startPayments(ctx, env)
  const publicUrl = startPublicUrlWatch(ctx, webhooks, env)
  stops.push(async () => publicUrl.stop())
  const services: Services = { webhooks, chains, payments, publicUrl, env }
  return ok({
    services,
    stop: async () => {
      for (const stop of stops.reverse()) await stop()
    },
  })
}

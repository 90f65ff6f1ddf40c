import type { paymentsMethods } from '../../shared/contract/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'
import { connectConsole } from './connect'
import { deleteEndpoints, listStaleEndpoints } from './stale-endpoints'
import type { Reach } from './stale-endpoints'

type PaymentsHandlers = Pick<ApiHandlers, keyof typeof paymentsMethods>

/** Payments over its service; "connect this console" and "clean up endpoints" are where payments
 * meets the listener (./connect.ts, ./stale-endpoints.ts). */
export function paymentsApi(ctx: AppContext, services: Services): PaymentsHandlers {
  const { payments } = services
  const changed = () => ctx.push.publish('payments.changed', { at: Date.now() })
  const thenStatus = async (done: Result<unknown>) => {
    if (!done.ok) return done
    changed()
    return payments.status()
  }
  return {
    'payments.status': () => payments.status(),
    'payments.keys.set': async ({ name, key, activate, keep }) =>
      thenStatus(await payments.setKey(name, key, activate, keep)),
    'payments.keys.test': ({ name }) => payments.testKey(name ? { keyName: name } : {}, true),
    'payments.publicUrl.state': async () => ok(services.publicUrl.state()),
    'payments.publicUrl.check': async () => ok(await services.publicUrl.checkNow()),
    'payments.keys.remove': async ({ name }) => thenStatus(await payments.removeKey(name)),
    'payments.keys.select': async ({ name }) => thenStatus(await payments.selectKey(name)),
    'payments.keys.plan': async ({ name, plan }) => thenStatus(await payments.setPlan(name, plan)),
    'payments.businesses.set': async ({ businesses, selectedBusinessId }) =>
      thenStatus(await payments.setBusinesses(businesses, selectedBusinessId)),
    'payments.endpointPaths.set': async (paths) => thenStatus(await payments.setEndpointPaths(paths)),
    'payments.wallets.list': () => payments.wallets(),
    'payments.webhooks.list': () => payments.listEndpoints(),
    'payments.webhooks.create': ({ confirmLive, ...input }) => payments.createEndpoint(input, confirmLive),
    'payments.webhooks.delete': ({ id, confirmLive }) => payments.deleteEndpoint(id, confirmLive),
    'payments.webhooks.connect': (input) => connectConsole(ctx, services, input),
    'payments.webhooks.stale': () =>
      listStaleEndpoints(payments, ctx.config().listener.publicUrl ?? null, reachThroughListener(services)),
    'payments.webhooks.cleanup': ({ ids, confirmLive }) => deleteEndpoints(payments, ids, confirmLive),
  }
}

/** In the console the listener's own check is used: an answer from this listener on a path that
 * is not /webhooks counts as nothing answering there. */
function reachThroughListener(services: Services): Reach {
  return async (url) => {
    const state = await services.webhooks.checkPublicUrl(url, services.env)
    const answers = state.state === 'reachable' || state.cause === 'elsewhere'
    return { answers, message: state.message }
  }
}

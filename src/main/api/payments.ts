import type { CreatedEndpoint, TestDelivery, paymentsMethods } from '../../shared/contract/payments'
import { checkHttpsUrl } from '../../shared/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

type PaymentsHandlers = Pick<ApiHandlers, keyof typeof paymentsMethods>

/** Payments over its service; "connect this console" is where payments meets the listener. */
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
    'payments.keys.set': async ({ name, key, activate }) =>
      thenStatus(await payments.setKey(name, key, activate)),
    'payments.keys.test': ({ name }) => payments.testKey(name ? { keyName: name } : {}),
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
    'payments.webhooks.connect': async ({ publicUrl, events, description, confirmLive }) => {
      const url = checkHttpsUrl(publicUrl)
      if (!url.ok) return url
      // A bare tunnel address forwards to the listener's root; its webhooks are under /webhooks.
      const target = new URL(url.value)
      if (target.pathname === '/') target.pathname = '/webhooks'
      const created = await payments.createEndpoint(
        { url: target.toString(), events, description: description ?? 'watchdesk console listener' },
        confirmLive,
      )
      if (!created.ok) return created
      const test = await deliverThroughPublicUrl(services, created.value, target.toString(), events[0]!)
      if (created.value.secretStored) {
        // Kept as listener.publicUrl (one writer) so its reachability is re-checked from now on.
        const saved = await ctx.updateConfig((config) => {
          const listener = (config.listener ?? {}) as Record<string, unknown>
          config.listener = { ...listener, publicUrl: target.toString() }
        })
        if (!saved.ok) ctx.log.warn('the public URL was not saved', { problem: saved.error.message })
        void services.publicUrl.checkNow()
      }
      return ok({ ...created.value, test })
    },
  }
}

/** Waits for the listener to pick up the new secret (it refreshes on the keychain's change
 * event), then sends a signed test event to the public URL, as the service will, and reports
 * success only when that event arrived at this listener. */
async function deliverThroughPublicUrl(
  services: Services,
  created: CreatedEndpoint,
  publicUrl: string,
  type: string,
): Promise<TestDelivery> {
  const endpointId = created.endpoint.id
  if (!created.secretStored)
    return {
      eventId: null,
      url: publicUrl,
      sentAt: null,
      arrivedAt: null,
      status: null,
      outcome: 'not_sent',
      message: 'No test event was sent: the secret is not in the keychain, so the listener cannot verify it.',
      fix: created.secretProblem,
    }
  const { webhooks } = services
  for (let waited = 0; !webhooks.status().endpoints.includes(endpointId) && waited < 3000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return webhooks.sendThrough(publicUrl, type, endpointId, services.env)
}

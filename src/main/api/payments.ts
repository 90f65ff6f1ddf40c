import type { paymentsMethods } from '../../shared/contract/payments'
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
      const test = await sendSelfTest(
        services,
        created.value.endpoint.id,
        events[0]!,
        created.value.secretStored,
      )
      return ok({ ...created.value, test })
    },
  }
}

/** Waits for the listener to pick up the new secret (it refreshes on the keychain's change
 * event), then signs a test event with it and posts it to the listener; reads back when the
 * listener committed it. */
async function sendSelfTest(services: Services, endpointId: string, type: string, secretStored: boolean) {
  const none = { eventId: null, url: null, sentAt: null, arrivedAt: null, status: null }
  if (!secretStored)
    return {
      ...none,
      message: 'No test event was sent: the secret is not in the keychain, so the listener cannot verify it.',
    }
  const { webhooks } = services
  for (let waited = 0; !webhooks.status().endpoints.includes(endpointId) && waited < 3000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const sentAt = Date.now()
  const sent = await webhooks.sendTest(type, endpointId)
  if (!sent.ok) return { ...none, sentAt, message: sent.error.message }
  const arrivedAt = webhooks.store.get(sent.value.id)?.receivedAt ?? null
  return {
    eventId: sent.value.id,
    url: sent.value.url,
    sentAt,
    arrivedAt,
    status: sent.value.status,
    message:
      arrivedAt !== null
        ? `The listener verified and stored test event ${sent.value.id} (${type}) signed with the new secret.`
        : `The listener answered ${sent.value.status} (${sent.value.answer.slice(0, 200)}) and did not store the test event.`,
  }
}

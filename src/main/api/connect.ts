import type { ConnectResult, TestDelivery, WebhookEndpoint } from '../../shared/contract/payments'
import { checkHttpsUrl } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { ApiError, Err, Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { Services } from '../services'
import { connectDescription, sameUrl } from './stale-endpoints'

export interface ConnectInput {
  publicUrl: string
  events: string[]
  description?: string
  confirmLive?: boolean
}

/** "Connect this console", as one transaction: the public URL is checked (DNS, TLS, connection,
 * this listener's identity header, the path) before anything is registered; the endpoint already
 * registered for that URL is reused; when the signed test through the URL fails, what this
 * attempt registered is deleted again (endpoint and secret); listener.publicUrl changes only once
 * a new URL is verified. */
export async function connectConsole(
  ctx: AppContext,
  services: Services,
  input: ConnectInput,
): Promise<Result<ConnectResult>> {
  const url = checkHttpsUrl(input.publicUrl)
  if (!url.ok) return url
  // A bare tunnel address forwards to the listener's root; its webhooks are under /webhooks.
  const target = new URL(url.value)
  if (target.pathname === '/') target.pathname = '/webhooks'
  const publicUrl = target.toString()
  const kept = ctx.config().listener.publicUrl ?? null
  const nothing = { ...emptyResult, publicUrl: kept }

  const reach = await services.webhooks.checkPublicUrl(publicUrl, services.env)
  if (reach.state !== 'reachable')
    return ok({ ...nothing, test: notRegistered(publicUrl, reach.cause ?? 'connection', reach) })

  const listed = await registeredFor(services, publicUrl)
  const registered = listed ?? []
  const reusable = registered.find((e) => e.secretInKeychain && sameEvents(e.events, input.events))
  if (reusable) return ok(await testReused(ctx, services, reusable, publicUrl, input.events[0]!, kept))

  const created = await services.payments.createEndpoint(
    { url: publicUrl, events: input.events, description: input.description ?? connectDescription },
    input.confirmLive,
  )
  if (!created.ok)
    return listed ? withOrphansRemoved(services, publicUrl, listed, created, input.confirmLive) : created
  const c = created.value
  const test = await deliverThroughPublicUrl(
    services,
    c.endpoint.id,
    c.secretStored,
    c.secretProblem,
    publicUrl,
    input.events[0]!,
  )
  const base = {
    endpoint: c.endpoint,
    reused: false,
    secretAccount: c.secretAccount,
    secretStored: c.secretStored,
    secretProblem: c.secretProblem,
    idempotencyKey: c.idempotencyKey,
    test,
  }
  if (test.outcome !== 'arrived') {
    const undone = await undo(services, c.endpoint.id, input.confirmLive)
    return ok({ ...base, endpoint: null, secretShownOnce: null, cleanup: undone, publicUrl: kept })
  }
  // The URL's earlier endpoints (no secret here, or other event types) are replaced by this one.
  const replaced = await replace(services, registered, input.confirmLive)
  const saved = await keepPublicUrl(ctx, services, publicUrl)
  return ok({ ...base, secretShownOnce: c.secretShownOnce, cleanup: replaced, publicUrl: saved })
}

const emptyResult = {
  endpoint: null,
  reused: false,
  secretShownOnce: null,
  secretAccount: null,
  secretStored: false,
  secretProblem: null,
  idempotencyKey: null,
  cleanup: null,
}

function notRegistered(
  url: string,
  outcome: TestDelivery['outcome'],
  why: { message: string; fix: string | null },
): TestDelivery {
  return {
    eventId: null,
    url,
    sentAt: null,
    arrivedAt: null,
    status: null,
    outcome,
    message: `${why.message} Nothing was registered at the service.`,
    fix: why.fix,
  }
}

/** Endpoints at the service already pointing at this URL; null when the list cannot be read
 * (then a new one is registered, as before). */
async function registeredFor(services: Services, url: string): Promise<WebhookEndpoint[] | null> {
  const listed = await services.payments.listEndpoints()
  if (!listed.ok) return null
  return listed.value.endpoints.filter((e) => e.url !== null && sameUrl(e.url, url))
}

/** A create that failed may still have been committed at the service (its answer lost on the way
 * back, every retry too): what is registered for the URL now and was not before is this
 * attempt's, and is deleted again. */
async function withOrphansRemoved(
  services: Services,
  url: string,
  before: WebhookEndpoint[],
  failed: Err<ApiError>,
  confirmLive?: boolean,
): Promise<Err<ApiError>> {
  const now = await registeredFor(services, url)
  const orphans = (now ?? []).filter((e) => !before.some((b) => b.id === e.id))
  if (orphans.length === 0) return failed
  const undone = await Promise.all(orphans.map((e) => undo(services, e.id, confirmLive)))
  return err(failed.error.code, `${failed.error.message} ${undone.join(' ')}`)
}

const sameEvents = (a: string[], b: string[]) => a.length === new Set(b).size && b.every((e) => a.includes(e))

async function testReused(
  ctx: AppContext,
  services: Services,
  endpoint: WebhookEndpoint,
  publicUrl: string,
  type: string,
  kept: string | null,
): Promise<ConnectResult> {
  const test = await deliverThroughPublicUrl(services, endpoint.id, true, null, publicUrl, type)
  const arrived = test.outcome === 'arrived'
  return {
    ...emptyResult,
    endpoint,
    reused: true,
    secretAccount: `webhook-secret:${endpoint.id}`,
    secretStored: true,
    test,
    cleanup: arrived
      ? null
      : `The endpoint ${endpoint.id} was registered for this URL before this attempt, so it was kept; "Clean up endpoints" deletes it if it is no longer wanted.`,
    publicUrl: arrived ? await keepPublicUrl(ctx, services, publicUrl) : kept,
  }
}

/** Deletes the endpoint this attempt registered (and its secret), and says so. */
async function undo(services: Services, id: string, confirmLive?: boolean): Promise<string> {
  const deleted = await services.payments.deleteEndpoint(id, confirmLive)
  if (deleted.ok)
    return `The endpoint ${id} registered for this attempt was deleted at the service${deleted.value.secretRemoved ? ' and its secret removed from the keychain' : ''}: nothing is left behind.`
  return `The endpoint ${id} registered for this attempt could not be deleted (${deleted.error.message}): delete it with "watchdesk webhooks delete ${id}" or "Clean up endpoints", or the service keeps sending to it.`
}

async function replace(
  services: Services,
  older: WebhookEndpoint[],
  confirmLive?: boolean,
): Promise<string | null> {
  if (older.length === 0) return null
  const sentences: string[] = []
  for (const e of older) {
    const deleted = await services.payments.deleteEndpoint(e.id, confirmLive)
    sentences.push(
      deleted.ok
        ? `The older endpoint ${e.id} for the same URL was deleted.`
        : `The older endpoint ${e.id} for the same URL could not be deleted (${deleted.error.message}): "Clean up endpoints" lists it.`,
    )
  }
  return sentences.join(' ')
}

/** Kept as listener.publicUrl (one writer) so its reachability is re-checked from now on. */
async function keepPublicUrl(ctx: AppContext, services: Services, url: string): Promise<string | null> {
  const saved = await ctx.updateConfig((config) => {
    const listener = (config.listener ?? {}) as Record<string, unknown>
    config.listener = { ...listener, publicUrl: url }
  })
  if (!saved.ok) {
    ctx.log.warn('the public URL was not saved', { problem: saved.error.message })
    return ctx.config().listener.publicUrl ?? null
  }
  void services.publicUrl.checkNow()
  return url
}

/** Waits for the listener to pick up the secret (it refreshes on the keychain's change event),
 * then sends a signed test event to the public URL, as the service will, and reports success
 * only when that event arrived at this listener. */
async function deliverThroughPublicUrl(
  services: Services,
  endpointId: string,
  secretStored: boolean,
  secretProblem: string | null,
  publicUrl: string,
  type: string,
): Promise<TestDelivery> {
  if (!secretStored)
    return {
      eventId: null,
      url: publicUrl,
      sentAt: null,
      arrivedAt: null,
      status: null,
      outcome: 'not_sent',
      message: 'No test event was sent: the secret is not in the keychain, so the listener cannot verify it.',
      fix: secretProblem,
    }
  const { webhooks } = services
  for (let waited = 0; !webhooks.status().endpoints.includes(endpointId) && waited < 3000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return webhooks.sendThrough(publicUrl, type, endpointId, services.env)
}

import type { Config } from '../../shared/config'
import type { CreatedEndpoint, WebhookEndpoint } from '../../shared/contract/payments'
import { maskSecret } from '../../shared/mask'
import { checkEndpointInput, findList } from '../../shared/payments'
import type { EndpointInput } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import type { SecretStore } from '../secrets'
import { confirmLiveWrite } from './connect'
import type { Connection } from './connect'

export interface EndpointDeps {
  connect(): Promise<Result<Connection>>
  config(): Config
  secrets: SecretStore
  log: Logger
}

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>

/** Webhook endpoints at the service: list, create (the one-time secret goes straight into the
 * keychain as `webhook-secret:<id>`), delete (and its secret with it). The list and delete paths
 * are configurable, the spec does not give them. */
export function createWebhookEndpoints(deps: EndpointDeps) {
  async function secretsPresent(): Promise<Set<string>> {
    const listed = await deps.secrets.list()
    if (!listed.ok) return new Set()
    return new Set(
      listed.value.filter((e) => accounts.isWebhookSecret(e.account)).map((e) => accounts.nameOf(e.account)),
    )
  }

  async function list(): Promise<Result<{ endpoints: WebhookEndpoint[]; raw: unknown }>> {
    const c = await deps.connect()
    if (!c.ok) return c
    const path = deps.config().webhookEndpoints.listPath
    const response = await c.value.client.request({ operation: 'webhooks.list', method: 'GET', path })
    if (!response.ok) return response
    const list = findList(response.value.body, `GET ${path}`)
    if (!list.ok)
      return err(
        'upstream',
        `${list.error.message} If the list lives elsewhere, set webhookEndpoints.listPath.`,
      )
    const present = await secretsPresent()
    const endpoints = list.value.items
      .map((item) => toEndpoint(item, present))
      .filter((e): e is WebhookEndpoint => e !== null)
    return ok({ endpoints, raw: maskSecrets(response.value.body) })
  }

  async function create(input: EndpointInput, confirmLive?: boolean): Promise<Result<CreatedEndpoint>> {
    const checked = checkEndpointInput(input)
    if (!checked.ok) return checked
    const c = await deps.connect()
    if (!c.ok) return c
    const guard = confirmLiveWrite(c.value.key, confirmLive, 'creating a webhook endpoint')
    if (!guard.ok) return guard
    const response = await c.value.client.request({
      operation: 'webhooks.create',
      method: 'POST',
      path: '/v1/webhooks',
      body: checked.value,
    })
    if (!response.ok) return response
    const body = unwrapObject(response.value.body)
    const id = typeof body?.id === 'string' ? body.id : null
    if (!body || !id) {
      return err(
        'upstream',
        `POST /v1/webhooks succeeded (${response.value.status}) but the answer has no endpoint id: ${JSON.stringify(maskSecrets(response.value.body))}.`,
      )
    }
    const secret = typeof body.secret === 'string' && body.secret.length > 0 ? body.secret : null
    let secretStored = false
    let secretProblem: string | null = null
    const account = accounts.webhookSecret(id)
    if (secret) {
      redactFromLogs(secret)
      const stored = await deps.secrets.set(account, secret)
      secretStored = stored.ok
      if (!stored.ok)
        secretProblem = `The secret could not be written to the keychain (${stored.error.message}). Copy it now: it is not shown again.`
      else if (!secret.startsWith('whsec_'))
        secretProblem =
          'The secret does not start with whsec_, as every endpoint secret should; it was stored as given.'
    } else
      secretProblem =
        'The create answer carried no secret, so deliveries to this endpoint cannot be verified. Delete it and create it again.'
    deps.log.info('webhook endpoint created', {
      id,
      url: checked.value.url,
      events: checked.value.events,
      secretStored,
      idempotencyKey: response.value.idempotencyKey,
    })
    const present = secretStored ? new Set([id]) : new Set<string>()
    return ok({
      endpoint: toEndpoint(body, present)!,
      secretShownOnce: secret,
      secretAccount: account,
      secretStored,
      secretProblem,
      idempotencyKey: response.value.idempotencyKey ?? '',
    })
  }

  async function remove(
    id: string,
    confirmLive?: boolean,
  ): Promise<Result<{ id: string; secretRemoved: boolean }>> {
    const c = await deps.connect()
    if (!c.ok) return c
    const guard = confirmLiveWrite(c.value.key, confirmLive, `deleting the webhook endpoint ${id}`)
    if (!guard.ok) return guard
    const { deletePath, deleteParam } = deps.config().webhookEndpoints
    const response = await c.value.client.request({
      operation: 'webhooks.delete',
      method: 'DELETE',
      path: deletePath,
      query: { [deleteParam]: id },
    })
    if (!response.ok) return response
    const removed = await deps.secrets.delete(accounts.webhookSecret(id))
    deps.log.info('webhook endpoint deleted', { id, secretRemoved: removed.ok && removed.value })
    return ok({ id, secretRemoved: removed.ok && removed.value })
  }

  return { list, create, remove }
}

function unwrapObject(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body)) return null
  if (typeof body.id === 'string') return body
  for (const key of ['data', 'webhook', 'endpoint', 'webhook_endpoint']) {
    const inner = body[key]
    if (isRecord(inner) && typeof inner.id === 'string') return inner
  }
  return null
}

function toEndpoint(item: unknown, secretsPresent: Set<string>): WebhookEndpoint | null {
  if (!isRecord(item) || typeof item.id !== 'string') return null
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return {
    id: item.id,
    url: str(item.url),
    events: Array.isArray(item.events) ? item.events.filter((e): e is string => typeof e === 'string') : [],
    description: str(item.description),
    status: str(item.status),
    secret: typeof item.secret === 'string' && item.secret ? maskSecret(item.secret) : null,
    createdAt: str(item.created_at),
    secretInKeychain: secretsPresent.has(item.id),
  }
}

/** The list is said to mask secrets; mask again whatever arrives before it reaches the renderer. */
function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets)
  if (!isRecord(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === 'secret' && typeof v === 'string' ? maskSecret(v) : maskSecrets(v),
    ]),
  )
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

import { ConfigObject } from '../../shared/config'
import type { KeyFeature, KeyTest } from '../../shared/contract/payments'
import { apiRoot, serviceErrorOf } from '../../shared/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { ApiKey, PaymentsClient } from './client'
import type { Connection, ConnectOverride } from './connect'

/** One GET /v1/wallets with a key: whether it works, the scopes the service says are missing, and
 * the businesses it reached. Used when a key is stored and by Settings' "Test" of apiBaseUrl. */
export async function testKey(
  connect: (override: ConnectOverride) => Promise<Result<Connection>>,
  override: ConnectOverride,
  configuredBase: string | undefined,
  /** Also try each feature's scope (the webhook endpoints' list path for webhooks:read). */
  features: { listPath: string } | null = null,
): Promise<Result<KeyTest>> {
  const invalid = override.baseUrl === undefined ? null : invalidBaseUrl(override.baseUrl)
  const given = invalid ? null : (override.baseUrl ?? configuredBase ?? null)
  const baseUrl = given ? apiRoot(given) : null
  const baseUrlNote =
    given && baseUrl !== given.replace(/\/+$/, '')
      ? `${given} ends in /v1; watchdesk adds /v1 to every path, so it calls ${baseUrl}/v1/… (save it without /v1).`
      : null
  const empty = {
    baseUrl,
    baseUrlNote,
    status: null,
    code: null,
    missingScopes: [],
    businesses: [],
    features: [],
    refused: false,
  }
  if (invalid)
    return ok({ ...empty, baseUrl: override.baseUrl ?? null, keyName: null, works: false, message: invalid })
  const c = await connect({ ...override, ...(baseUrl ? { baseUrl } : {}) })
  if (!c.ok)
    return ok({ ...empty, keyName: override.keyName ?? null, works: false, message: c.error.message })
  const { key, businessId } = c.value
  const answer = await c.value.client.request({
    operation: 'wallets.list',
    method: 'GET',
    path: '/v1/wallets',
  })
  const wallets = answerOf(answer)
  // No answer at all (the API down) or the key refused: the other features would say the same.
  const probed =
    features && wallets.status !== null && wallets.status !== 401
      ? [featureOf('wallets', wallets), ...(await probeWebhooks(c.value.client, features.listPath, key.kind))]
      : []
  const missingScopes = [
    ...new Set([
      ...(wallets.said?.scopes ?? []),
      ...probed.filter((f) => f.state === 'missing').map((f) => f.scope),
    ]),
  ]
  // Refused: the key itself (401), or nothing watchdesk uses is allowed (403 to every feature).
  const refused = wallets.status === 401 || (probed.length > 0 && probed.every((f) => f.state === 'missing'))
  if (!answer.ok) {
    return ok({
      ...empty,
      keyName: key.name,
      works: false,
      status: wallets.status,
      code: wallets.said?.code ?? null,
      missingScopes,
      features: probed,
      refused,
      message: answer.error.message,
    })
  }
  const businesses = [...new Set([...(businessId ? [businessId] : []), ...businessesIn(answer.value.body)])]
  return ok({
    ...empty,
    keyName: key.name,
    works: true,
    status: answer.value.status,
    missingScopes,
    features: probed,
    refused,
    businesses,
    message: `The key "${key.name}" works: GET ${baseUrl}/v1/wallets answered ${answer.value.status}${
      businesses.length > 0
        ? ` for ${businesses.join(', ')}`
        : ' without X-Business-Id (a single-business account, or name your businesses under Businesses)'
    }.`,
  })
}

type Answer = Awaited<ReturnType<PaymentsClient['request']>>

function answerOf(answer: Answer): { status: number | null; said: ReturnType<typeof serviceErrorOf> } {
  if (answer.ok) return { status: answer.value.status, said: null }
  const detail = (answer.error.detail ?? {}) as { status?: number; body?: unknown }
  return {
    status: typeof detail.status === 'number' ? detail.status : null,
    said: serviceErrorOf(detail.body),
  }
}

const featureLabels: Record<KeyFeature['feature'], { label: string; scope: string }> = {
  wallets: { label: 'Wallets', scope: 'wallets:read' },
  'webhooks.read': { label: 'Webhook endpoints (list, Clean up)', scope: 'webhooks:read' },
  'webhooks.write': { label: 'Connect this console, create and delete endpoints', scope: 'webhooks:write' },
}

/** A 403 is the scope missing (the one the service names, else the feature's); any other answer
 * from the service means the key got past the scope check. */
function featureOf(feature: KeyFeature['feature'], a: ReturnType<typeof answerOf>): KeyFeature {
  const { label, scope } = featureLabels[feature]
  if (a.status === null) return { feature, label, scope, state: 'unknown', message: 'no answer' }
  if (a.status === 403 && !/business/i.test(a.said?.code ?? ''))
    return { feature, label, scope, state: 'missing', message: a.said?.message ?? null }
  if (a.status === 401) return { feature, label, scope, state: 'missing', message: 'the key was refused' }
  return { feature, label, scope, state: 'ok', message: null }
}

/** webhooks:read with the list; webhooks:write with a create that cannot succeed (no url, which
 * the service requires), so nothing is registered whatever the key may do. Not with a live key:
 * every write with one is confirmed first, even one that cannot succeed. */
async function probeWebhooks(
  client: PaymentsClient,
  listPath: string,
  kind: ApiKey['kind'],
): Promise<KeyFeature[]> {
  const read = await client.request({ operation: 'webhooks.list', method: 'GET', path: listPath })
  const readFeature = featureOf('webhooks.read', answerOf(read))
  if (kind === 'live')
    return [
      readFeature,
      {
        feature: 'webhooks.write',
        ...featureLabels['webhooks.write'],
        state: 'unknown',
        message: 'not tried with a live key (it would be a write)',
      },
    ]
  const write = await client.request({
    operation: 'webhooks.create',
    method: 'POST',
    path: '/v1/webhooks',
    body: { events: [] },
  })
  return [readFeature, featureOf('webhooks.write', answerOf(write))]
}

/** Business ids named in a wallets answer (`business_id`, `business`, `businessId` of its items). */
function businessesIn(body: unknown): string[] {
  const list = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null
      ? (Object.values(body).find(Array.isArray) ?? [])
      : []
  const out: string[] = []
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) continue
    const o = item as Record<string, unknown>
    for (const v of [o.business_id, o.businessId, o.business])
      if (typeof v === 'string' && /^biz_/.test(v)) out.push(v)
  }
  return out
}

/** A base URL typed into Settings' "Test" before it is saved: the config rule's message, or null. */
function invalidBaseUrl(candidate: string): string | null {
  const valid = ConfigObject.shape.apiBaseUrl.safeParse(candidate)
  return valid.success ? null : `apiBaseUrl: ${valid.error.issues[0]?.message ?? 'not a URL'}.`
}

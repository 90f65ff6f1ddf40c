import type { CleanupResult, StaleEndpoint, WebhookEndpoint } from '../../shared/contract/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { PaymentsService } from '../payments'
import { explainFailure, probe } from '../webhooks'

/** The description "Connect this console" gives the endpoints it registers: how an endpoint made
 * for one of this console's earlier public URLs is told from one the operator made by hand. */
export const connectDescription = 'watchdesk console listener'

/** Whether something answers at an endpoint's URL, and the sentence when nothing does. */
export type Reach = (url: string) => Promise<{ answers: boolean; message: string }>

export function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).toString()
    } catch {
      return u
    }
  }
  return norm(a) === norm(b)
}

/** What "Clean up endpoints" proposes: a second endpoint for the current public URL; one that
 * Connect registered for an earlier public URL; one whose URL nothing answers at. An endpoint whose
 * URL answers (the operator's own app, a relay) is never proposed unless Connect made it. */
export async function findStaleEndpoints(
  endpoints: WebhookEndpoint[],
  publicUrl: string | null,
  reach: Reach,
): Promise<StaleEndpoint[]> {
  const current = publicUrl ? endpoints.filter((e) => e.url !== null && sameUrl(e.url, publicUrl)) : []
  const keep = current.find((e) => e.secretInKeychain) ?? current[0]
  const stale: StaleEndpoint[] = current
    .filter((e) => e !== keep)
    .map((endpoint) => ({
      endpoint,
      reason: 'duplicate' as const,
      message: `A second endpoint for the current public URL (${keep!.id} is kept): the service sends every event to both.`,
    }))
  const others = endpoints.filter((e) => !current.includes(e))
  const answers = new Map<string, Awaited<ReturnType<Reach>>>()
  await Promise.all(
    [...new Set(others.map((e) => e.url).filter((u): u is string => u !== null))].map(async (url) =>
      answers.set(url, await reach(url)),
    ),
  )
  for (const endpoint of others) {
    const answer = endpoint.url ? answers.get(endpoint.url)! : { answers: false, message: 'It has no URL.' }
    if (!answer.answers)
      stale.push({
        endpoint,
        reason: 'unreachable',
        message: `Nothing answers at its URL: ${answer.message}`,
      })
    else if (endpoint.description === connectDescription)
      stale.push({
        endpoint,
        reason: 'earlier_url',
        message: `Registered by "Connect this console" for ${endpoint.url}, which is not the current public URL${publicUrl ? ` (${publicUrl})` : ''}.`,
      })
  }
  return stale
}

/** Reach by one HEAD request, as the service would deliver: no answer at all (DNS, TLS,
 * connection, time-out) is "nothing answers"; any HTTP answer is something. */
export function reachByProbe(env: NodeJS.ProcessEnv): Reach {
  return async (url) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return { answers: false, message: `"${url}" is not a URL.` }
    }
    const answer = await probe(target, { method: 'HEAD', env, timeoutMs: 5_000 })
    if (answer.kind === 'answered') return { answers: true, message: `answered ${answer.status}` }
    return { answers: false, message: explainFailure(target, answer, null).message }
  }
}

export async function listStaleEndpoints(
  payments: PaymentsService,
  publicUrl: string | null,
  reach: Reach,
): Promise<Result<{ stale: StaleEndpoint[]; total: number }>> {
  const listed = await payments.listEndpoints()
  if (!listed.ok) return listed
  const stale = await findStaleEndpoints(listed.value.endpoints, publicUrl, reach)
  return ok({ stale, total: listed.value.endpoints.length })
}

/** Deletes each chosen endpoint (and its secret); one failure does not stop the others, but a
 * live key without the operator's confirmation deletes nothing. */
export async function deleteEndpoints(
  payments: PaymentsService,
  ids: string[],
  confirmLive: boolean | undefined,
): Promise<Result<CleanupResult>> {
  const result: CleanupResult = { deleted: [], failed: [] }
  for (const id of [...new Set(ids)]) {
    const deleted = await payments.deleteEndpoint(id, confirmLive)
    if (deleted.ok) result.deleted.push(deleted.value)
    else if (deleted.error.code === 'forbidden' && result.deleted.length === 0) return deleted
    else result.failed.push({ id, message: deleted.error.message })
  }
  return ok(result)
}

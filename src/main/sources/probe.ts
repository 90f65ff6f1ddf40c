import type { ListenerStatus } from '../../shared/contract/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { accounts } from '../secrets'
import { fetchPage } from './client'

type Relay = { url: string; token: string }

/** A configured source's URL and its token from the keychain, or why not. */
async function relayOf(ctx: AppContext, name: string): Promise<Result<Relay>> {
  const source = ctx.config().sources[name]
  if (!source)
    return err(
      'not_found',
      `No source is named ${name}. Add it in Settings → Sources, or: watchdesk sources add ${name} URL.`,
    )
  const got = await ctx.secrets.get(accounts.sourceToken(name))
  if (!got.ok) return got
  if (!got.value)
    return err(
      'not_found',
      `No token for ${name} in the keychain (source-token:${name}). Add the source again with its token.`,
    )
  return ok({ url: source.url, token: got.value })
}

/** Whether a relay (configured, or a URL and token not saved yet) accepts the token, and how many
 * events it holds. */
export async function testRelay(
  ctx: AppContext,
  target: { name: string } | Relay,
): Promise<Result<{ ok: boolean; message: string; events: number | null }>> {
  const relay = 'name' in target ? await relayOf(ctx, target.name) : ok(target)
  if (!relay.ok) return ok({ ok: false, message: relay.error.message, events: null })
  const page = await fetchPage(relay.value.url, relay.value.token, '0', 1, true, AbortSignal.timeout(10_000))
  if (!page.ok) return ok({ ok: false, message: page.error.message, events: null })
  const events = page.value.events.length + (page.value.remaining ?? 0)
  return ok({
    ok: true,
    message: `The relay accepts the token and holds ${events.toLocaleString('en-US')} events.`,
    events,
  })
}

/** The listener status of the relay a source follows (its GET /sync/listener). */
export async function relayListener(ctx: AppContext, name: string): Promise<Result<ListenerStatus>> {
  const relay = await relayOf(ctx, name)
  if (!relay.ok) return relay
  try {
    const res = await fetch(`${relay.value.url.replace(/\/+$/, '')}/sync/listener`, {
      headers: { authorization: `Bearer ${relay.value.token}` },
      signal: AbortSignal.timeout(10_000),
    })
    if (!res.ok)
      return err(res.status === 401 ? 'unauthorized' : 'unavailable', `The relay answered ${res.status}.`)
    return ok((await res.json()) as ListenerStatus)
  } catch (error) {
    return err(
      'unavailable',
      `The relay at ${relay.value.url} cannot be reached (${(error as Error).message}).`,
    )
  }
}

import { z } from 'zod'
import { sourceNamePattern } from '../config'
import { method } from './define'
import { ListenerStatus } from './events'

/** Where a console stands with one relay it follows. */
export const SourceState = z.enum([
  /** `sources.<name>.enabled` is false. */
  'disabled',
  /** No `source-token:<name>` in the keychain. */
  'no-token',
  'connecting',
  /** Reading pages from its last cursor (everything missed while the console was closed). */
  'catching-up',
  /** Following the live stream. */
  'live',
  /** The relay does not answer; retried with back-off. */
  'unreachable',
  /** The relay refused the token. */
  'refused',
  /** The local database cannot commit; retried. */
  'storage',
])
export type SourceState = z.infer<typeof SourceState>

export const SourceStatus = z.object({
  name: z.string(),
  url: z.string(),
  state: SourceState,
  /** The cause and the fix, when the state is not catching-up or live. */
  problem: z.string().nullable(),
  tokenStored: z.boolean(),
  /** Events stored from this relay since the console started. */
  synced: z.number().int(),
  /** Events still to fetch when the catch-up started, minus those fetched since (null: unknown). */
  remaining: z.number().int().nullable(),
  /** The last message from the relay (an event page or a heartbeat), ms since the epoch. */
  lastContactAt: z.number().nullable(),
  /** When the catch-up ended and the live stream began. */
  liveSince: z.number().nullable(),
  /** What the operator should know though nothing is wrong now, said once: e.g. "relay store was
   * replaced or restored: re-synced from …" after the console re-anchored its cursor. */
  notice: z.string().nullable().optional(),
})
export type SourceStatus = z.infer<typeof SourceStatus>

const SourceName = z.string().regex(sourceNamePattern, 'a source name is letters, digits, _ . - (at most 64)')

export const sourcesMethods = {
  'sources.list': method(
    'The relays this console follows, with where each stands',
    z.object({}).strict(),
    z.object({ sources: z.array(SourceStatus) }),
  ),
  'sources.add': method(
    'Follows a relay: its URL goes to sources.<name>.url, its token to the keychain (source-token:<name>)',
    z
      .object({
        name: SourceName,
        url: z.string().url().max(2000),
        token: z.string().min(8).max(500),
      })
      .strict(),
    SourceStatus,
  ),
  'sources.remove': method(
    'Stops following a relay and forgets its token and cursor (events already synced stay)',
    z.object({ name: SourceName }).strict(),
    z.object({ removed: z.boolean() }),
  ),
  'sources.test': method(
    'Asks a relay (a configured source, or a URL and token not saved yet) whether it accepts the token',
    z.union([
      z.object({ name: SourceName }).strict(),
      z.object({ url: z.string().url().max(2000), token: z.string().min(8).max(500) }).strict(),
    ]),
    z.object({ ok: z.boolean(), message: z.string(), events: z.number().int().nullable() }),
  ),
  'sources.listener': method(
    "A relay's listener strip: its counts, latency, storage and recent rejections",
    z.object({ name: SourceName }).strict(),
    ListenerStatus,
  ),
}

export const sourcesPushes = {
  /** Sent when a source's state changes, and at most every 250 ms while it catches up. */
  'sources.status': z.object({ sources: z.array(SourceStatus) }),
}

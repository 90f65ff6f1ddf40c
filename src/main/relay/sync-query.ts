import { createHash } from 'node:crypto'
import { maxAnchorIds, syncPageLimit } from '../../shared/contract/sync'
import type { SyncAnchor, SyncCursorProblem, SyncCursorRefusal, SyncPage } from '../../shared/contract/sync'
import type { RelayStore } from './store'

/** The sync API's query strings, checked before anything is read: a cursor is never trusted (issue
 * 29). A cursor the relay hands out is `POSITION_STORE_TAG`: the store's own position (SQLite: the
 * last seq; PostgreSQL: txid.seq), the store's identity, and a tag of the id of the event at that
 * position. Coming back, it must name this store, lie within what the store holds, and (when the
 * store still holds an event at that position) name that event. A bare position (a cursor of a
 * relay before this check) is checked against the store's end only. */

/** Either what to read, or the answer that refuses the request (a status and one sentence). */
export type Checked<T> = { ok: true; value: T } | { ok: false; status: 400 | 409; body: object }

export interface CheckedCursor {
  /** The store's raw position, as `readAfter` takes it. */
  position: string
  /** The cursor as the client should hold it from now on. */
  text: string
}

const start = '0'
const positionForm = /^[0-9.]{1,40}$/
const checkedForm = /^([0-9.]{1,40})_([0-9a-z]{10})(?:_([0-9a-f]{8}))?$/

/** What a client sent, cut for quoting in an answer. */
const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)

const reanchor =
  're-anchor: GET /sync/anchor?id=<the ids of the newest events you hold, newest first>, then read on from the cursor it answers (watchdesk consoles do this by themselves)'

/** The tag of an event id in a cursor: 8 hex digits of its SHA-256. */
export const tagOf = (id: string): string => createHash('sha256').update(id).digest('hex').slice(0, 8)

/** The cursor a client holds for `position` in the store `identity`, after the event `id`. */
export function cursorText(identity: string, position: string, id: string | null): string {
  if (position === start || position === '') return start
  return id === null ? `${position}_${identity}` : `${position}_${identity}_${tagOf(id)}`
}

function refusal(problem: SyncCursorProblem, identity: string, error: string): Checked<never> {
  const body: SyncCursorRefusal = { error, problem, store: identity, anchor: '/sync/anchor' }
  return { ok: false, status: 409, body }
}

/** Checks `after` against the store as it is now: 400 for what is no cursor at all, 409 for one
 * this store did not issue as it is now (another store, past its end, another event there). */
export async function checkCursor(store: RelayStore, after: string): Promise<Checked<CheckedCursor>> {
  if (after === '' || after === start) return { ok: true, value: { position: start, text: start } }
  const form = checkedForm.exec(after)
  const position = form ? form[1]! : positionForm.test(after) ? after : null
  if (position === null)
    return {
      ok: false,
      status: 400,
      body: {
        error: `${quoted(after)} is not a cursor of this relay: pass the \`next\` (or an event's \`cursor\`) it answered, or after=0 to read from the start.`,
      },
    }
  const identity = store.identity
  if (form && form[2] !== identity)
    return refusal(
      'other-store',
      identity,
      `This cursor was issued by the relay store ${form[2]}, but this relay's store is ${identity}: the store was replaced or recreated. To read on without gaps or duplicates, ${reanchor}.`,
    )
  const facts = await store.positionFacts(position)
  if (!facts.ok) return { ok: false, status: 400, body: { error: facts.error.message } }
  if (facts.value.pastEnd)
    return refusal(
      'past-end',
      identity,
      `The cursor ${quoted(after)} lies past the newest event of this relay's store ${identity}: the store was restored from an older backup or recreated. To read on without gaps or duplicates, ${reanchor}.`,
    )
  const tag = form?.[3]
  if (tag && facts.value.idAt !== null && tagOf(facts.value.idAt) !== tag)
    return refusal(
      'replaced-event',
      identity,
      `This relay's store ${identity} holds another event where this cursor's event was: the store was restored from an older backup and has taken new events since. To read on without gaps or duplicates, ${reanchor}.`,
    )
  return {
    ok: true,
    value: { position, text: form ? after : cursorText(identity, position, facts.value.idAt) },
  }
}

/** `limit` of /sync/events: absent → the default; a whole number within the range, else 400. */
export function checkLimit(text: string | null): Checked<number> {
  if (text === null) return { ok: true, value: syncPageLimit.default }
  const n = /^\d{1,7}$/.test(text) ? Number(text) : NaN
  if (n >= syncPageLimit.min && n <= syncPageLimit.max) return { ok: true, value: n }
  return {
    ok: false,
    status: 400,
    body: {
      error: `limit must be a whole number from ${syncPageLimit.min} to ${syncPageLimit.max.toLocaleString('en')} (got ${quoted(text)}): ask for at most ${syncPageLimit.max.toLocaleString('en')} events a page and read on from \`next\`.`,
    },
  }
}

/** A page as the client sees it: every cursor in the checked form. `after` is the client's cursor,
 * answered as `next` when nothing was new. */
export function presentPage(page: SyncPage, identity: string, after: string): SyncPage {
  const events = page.events.map((e) => ({ ...e, cursor: cursorText(identity, e.cursor, e.id) }))
  return { ...page, events, next: events.at(-1)?.cursor ?? after }
}

/** GET /sync/anchor?id=…: the cursor after the newest of these events that the store holds. */
export async function anchorOf(store: RelayStore, ids: string[]): Promise<Checked<SyncAnchor>> {
  if (ids.length === 0 || ids.length > maxAnchorIds || ids.some((id) => id.length === 0 || id.length > 1_000))
    return {
      ok: false,
      status: 400,
      body: {
        error: `/sync/anchor takes 1 to ${maxAnchorIds} id= parameters (the ids of the newest events you hold, newest first, each 1 to 1,000 characters).`,
      },
    }
  const newest = await store.positionOfNewest(ids)
  const identity = store.identity
  if (!newest) return { ok: true, value: { cursor: start, after: null, store: identity } }
  return {
    ok: true,
    value: { cursor: cursorText(identity, newest.position, newest.id), after: newest.id, store: identity },
  }
}

/** A commit's events on their way to the commit worker: one string and one transferable buffer for
 * the whole group, instead of a structured clone of an object per event (issue 35: at saturation
 * the clone was the listener thread's largest own cost after the answer's write, and its body
 * views cloned the socket's read buffers they point into). Both sides import this file; no runtime
 * imports: the worker loads it as it is (Node strips the types). */
import type { EventParams } from './sql'

/** The string fields of `EventParams`, in the order `text` holds them. */
const stringFields = [
  'id',
  'type',
  'grp',
  'created_at',
  'endpoint',
  'data_id',
  'data',
  'remote',
  'source',
  'cursor',
] as const satisfies readonly (keyof EventParams)[]
/** The number fields: created_ms (null), at, and a synced event's conflicts and page end (absent). */
const numberFields = [
  'created_ms',
  'at',
  'conflicts',
  'last',
] as const satisfies readonly (keyof EventParams)[]
const byteFields = ['body', 'conflict_body'] as const satisfies readonly (keyof EventParams)[]
/** Fails the build when a field of `EventParams` is in none of the lists above. */
const everyFieldPacked: Exclude<
  keyof EventParams,
  (typeof stringFields)[number] | (typeof numberFields)[number] | (typeof byteFields)[number]
> extends never
  ? true
  : never = true
void everyFieldPacked

/** In `lengths`: the field is null, or not there at all (a listener's delivery has no source). */
const isNull = -1
const absent = -2

export interface PackedEvents {
  count: number
  /** Every string field of every event, one after another. */
  text: string
  /** One buffer, transferred: per event its number fields (Float64, NaN for null or absent), then
   * per event the lengths of its string and byte fields (Int32, `isNull`, `absent`), then the bytes
   * of every body and conflict body. */
  buffer: ArrayBuffer
}

const numbersPer = numberFields.length
const lengthsPer = stringFields.length + byteFields.length

/** Packs a group of events; `buffer` is this call's own, so it may be transferred. */
export function packEvents(events: readonly EventParams[]): PackedEvents {
  const count = events.length
  let bytes = 0
  for (const e of events) bytes += e.body.byteLength + (e.conflict_body?.byteLength ?? 0)
  const bytesAt = count * (numbersPer * 8 + lengthsPer * 4)
  const buffer = new ArrayBuffer(bytesAt + bytes)
  const numbers = new Float64Array(buffer, 0, count * numbersPer)
  const lengths = new Int32Array(buffer, count * numbersPer * 8, count * lengthsPer)
  const raw = new Uint8Array(buffer)
  let text = ''
  let at = bytesAt
  events.forEach((e, i) => {
    const record = e as unknown as Record<string, unknown>
    numberFields.forEach((field, k) => {
      const value = record[field]
      numbers[i * numbersPer + k] = typeof value === 'number' ? value : NaN
    })
    stringFields.forEach((field, k) => {
      const value = record[field]
      if (typeof value === 'string') text += value
      lengths[i * lengthsPer + k] =
        typeof value === 'string' ? value.length : value === null ? isNull : absent
    })
    byteFields.forEach((field, k) => {
      const value = record[field] as Uint8Array | null | undefined
      if (value) {
        raw.set(value, at)
        at += value.byteLength
      }
      lengths[i * lengthsPer + stringFields.length + k] = value
        ? value.byteLength
        : value === null
          ? isNull
          : absent
    })
  })
  return { count, text, buffer }
}

/** The events again, each as `packEvents` was given it (a field absent there is absent here; the
 * bytes are Buffers over the one transferred buffer, which SQLite binds as blobs). */
export function unpackEvents({ count, text, buffer }: PackedEvents): EventParams[] {
  const numbers = new Float64Array(buffer, 0, count * numbersPer)
  const lengths = new Int32Array(buffer, count * numbersPer * 8, count * lengthsPer)
  let textAt = 0
  let bytesAt = count * (numbersPer * 8 + lengthsPer * 4)
  const events: EventParams[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const e: Record<string, unknown> = {}
    for (let k = 0; k < numbersPer; k++) {
      const value = numbers[i * numbersPer + k]!
      const field = numberFields[k]!
      if (!Number.isNaN(value)) e[field] = value
      else if (field === 'created_ms') e[field] = null
    }
    for (let k = 0; k < stringFields.length; k++) {
      const length = lengths[i * lengthsPer + k]!
      if (length === absent) continue
      e[stringFields[k]!] = length === isNull ? null : text.slice(textAt, (textAt += length))
    }
    for (let k = 0; k < byteFields.length; k++) {
      const length = lengths[i * lengthsPer + stringFields.length + k]!
      if (length === absent) continue
      e[byteFields[k]!] = length === isNull ? null : Buffer.from(buffer, bytesAt, length)
      if (length !== isNull) bytesAt += length
    }
    events[i] = e as unknown as EventParams
  }
  return events
}

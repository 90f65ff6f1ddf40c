// The group statement's arrays in PostgreSQL's binary array format (array_send / array_recv).
//
// node-postgres sends a JavaScript array as a text literal: every element quoted and escaped, a
// body as `\x` and two hex digits per byte, so each delivery's bytes crossed the socket twice over
// and PostgreSQL parsed them back character by character (array_in, byteain's hex). A Buffer
// parameter goes in binary instead: one length-prefixed copy of each element, which PostgreSQL
// reads with memcpy (issue 35, docs/benchmarks.md, session 13 relay).

/** Element type oids (pg_type) the statement's casts name: `$n::text[]`, `::bytea[]`, `::bigint[]`. */
const textOid = 25
const byteaOid = 17
const int8Oid = 20

/** Header: ndim, has-nulls flag, element type; then size and lower bound of the one dimension. */
function header(n: number, hasNull: boolean, oid: number): Buffer {
  if (n === 0) {
    const empty = Buffer.allocUnsafe(12)
    empty.writeInt32BE(0, 0)
    empty.writeInt32BE(0, 4)
    empty.writeInt32BE(oid, 8)
    return empty
  }
  const head = Buffer.allocUnsafe(20)
  head.writeInt32BE(1, 0)
  head.writeInt32BE(hasNull ? 1 : 0, 4)
  head.writeInt32BE(oid, 8)
  head.writeInt32BE(n, 12)
  head.writeInt32BE(1, 16)
  return head
}

/** A one-dimensional array of byte strings (null: SQL NULL) in binary, elements of type `oid`. */
function bytesArray(values: readonly (Uint8Array | null)[], oid: number): Buffer {
  let size = values.length === 0 ? 12 : 20
  let hasNull = false
  for (const v of values) {
    size += 4 + (v ? v.byteLength : 0)
    if (!v) hasNull = true
  }
  const out = Buffer.allocUnsafe(size)
  header(values.length, hasNull, oid).copy(out, 0)
  let at = values.length === 0 ? 12 : 20
  for (const v of values) {
    if (!v) {
      out.writeInt32BE(-1, at)
      at += 4
      continue
    }
    out.writeInt32BE(v.byteLength, at)
    out.set(v, at + 4)
    at += 4 + v.byteLength
  }
  return out
}

/** text[]: each string as its UTF-8 bytes (what node-postgres sends for a string, so a lone
 * surrogate becomes U+FFFD either way, and a NUL is refused by PostgreSQL either way: 22021). */
export function textArray(values: readonly (string | null)[]): Buffer {
  return bytesArray(
    values.map((v) => (v === null ? null : Buffer.from(v, 'utf8'))),
    textOid,
  )
}

export function byteaArray(values: readonly Uint8Array[]): Buffer {
  return bytesArray(values, byteaOid)
}

/** bigint[]: each as 8 bytes, big-endian. Only safe integers (or null) have an exact binary
 * form; anything else (a fraction) goes as the text array it was, so PostgreSQL refuses it as
 * before (22P02, that delivery alone). */
export function bigintArray(values: readonly (number | null)[]): Buffer | (number | null)[] {
  if (!values.every((v) => v === null || Number.isSafeInteger(v))) return [...values]
  const hasNull = values.includes(null)
  const head = header(values.length, hasNull, int8Oid)
  let size = head.byteLength
  for (const v of values) size += v === null ? 4 : 12
  const out = Buffer.allocUnsafe(size)
  head.copy(out, 0)
  let at = head.byteLength
  for (const v of values) {
    if (v === null) {
      out.writeInt32BE(-1, at)
      at += 4
      continue
    }
    out.writeInt32BE(8, at)
    out.writeBigInt64BE(BigInt(v), at + 4)
    at += 12
  }
  return out
}

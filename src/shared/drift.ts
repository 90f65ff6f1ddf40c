import { z } from 'zod'
import type { ShapeChange } from './contract/drift'
import { globRegExp } from './glob'

/** The payload drift watch's config keys (`drift`, see docs/events.md). */
export const DriftConfig = z
  .object({
    /** Learn each event type's `data` shape and warn when it changes. */
    enabled: z.boolean().default(true),
    /** Events of a type read before its shape is taken as known; until then nothing warns. */
    learnEvents: z.number().int().min(1).max(100_000).default(10),
    /** Changes that are known and expected: `"<type> <field path>"`, `*` matching any run of
     * characters in either (`"payment.* metadata.*"`); a type alone acknowledges all its fields. */
    acknowledged: z.array(z.string().min(1).max(400)).default([]),
  })
  .strict()
export type DriftConfig = z.infer<typeof DriftConfig>

/** A field path as the operator writes and reads it: the whole `data` is "data". */
export const pathName = (path: string): string => (path === '' ? 'data' : path)

/** The `drift.acknowledged` entry for one change of one type. */
export const acknowledgeEntry = (type: string, change: Pick<ShapeChange, 'path'>): string =>
  `${type} ${pathName(change.path)}`

/** `a.b[].c` → `a.b[].c`, `a.b[]`, `a.b`, `a`: a field and the fields it is under. */
function selfAndAncestors(path: string): string[] {
  const out = [path]
  for (let p = path; ;) {
    const cut = p.endsWith('[]') ? p.length - 2 : Math.max(p.lastIndexOf('.'), p.lastIndexOf('['))
    if (cut <= 0) return out
    p = p.slice(0, cut)
    out.push(p)
  }
}

/** Whether an entry of `drift.acknowledged` covers this change of this type: an entry naming a
 * field covers the fields under it too (`metadata` covers `metadata.order`). */
export function isAcknowledged(entries: readonly string[], type: string, change: ShapeChange): boolean {
  const paths = selfAndAncestors(pathName(change.path))
  return entries.some((entry) => {
    const space = entry.indexOf(' ')
    const typePattern = space < 0 ? entry : entry.slice(0, space)
    const pathPattern = globRegExp(space < 0 ? '*' : entry.slice(space + 1).trim())
    return globRegExp(typePattern).test(type) && paths.some((p) => pathPattern.test(p))
  })
}

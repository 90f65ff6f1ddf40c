import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** Dotted keys (`chains.1.slug`, `listener.port`) over plain JSON objects: what `config get/set/unset`
 * and the three-way merge of the writer work with. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function splitKey(key: string): Result<string[]> {
  const parts = key.split('.')
  if (key.trim() === '' || parts.some((p) => p === ''))
    return err('bad_request', `"${key}" is not a config key: use dotted names such as listener.port.`)
  if (parts.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype'))
    return err('bad_request', `"${key}" is not a config key.`)
  return ok(parts)
}

export function getPath(object: Record<string, unknown>, parts: string[]): unknown {
  let at: unknown = object
  for (const part of parts) {
    if (!isPlainObject(at) || !Object.hasOwn(at, part)) return undefined
    at = at[part]
  }
  return at
}

/** Sets a value, creating objects on the way (a non-object on the way is replaced). */
export function setPath(object: Record<string, unknown>, parts: string[], value: unknown): void {
  let at = object
  for (const part of parts.slice(0, -1)) {
    const next = at[part]
    if (!isPlainObject(next)) at[part] = {}
    at = at[part] as Record<string, unknown>
  }
  at[parts.at(-1)!] = value
}

/** Removes a value and the objects it leaves empty; false when there was nothing to remove. */
export function unsetPath(object: Record<string, unknown>, parts: string[]): boolean {
  const [head, ...rest] = parts
  if (head === undefined || !Object.hasOwn(object, head)) return false
  if (rest.length === 0) {
    delete object[head]
    return true
  }
  const child = object[head]
  if (!isPlainObject(child)) return false
  const removed = unsetPath(child, rest)
  if (removed && Object.keys(child).length === 0) delete object[head]
  return removed
}

/** A command-line value: JSON when it parses as JSON (numbers, booleans, null, objects, arrays,
 * quoted strings), the text itself otherwise. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export type ConfigPatch = { path: string[]; value: unknown } | { path: string[]; remove: true }

/** What changed from `base` to `next`, leaf by leaf (objects are walked, arrays and scalars are
 * values), so a change made on a stale copy can be applied to the file as it is now. */
export function diffObjects(
  base: Record<string, unknown>,
  next: Record<string, unknown>,
  prefix: string[] = [],
): ConfigPatch[] {
  const out: ConfigPatch[] = []
  for (const key of Object.keys(base)) {
    if (!Object.hasOwn(next, key)) out.push({ path: [...prefix, key], remove: true })
  }
  for (const [key, value] of Object.entries(next)) {
    const before = base[key]
    if (isPlainObject(before) && isPlainObject(value))
      out.push(...diffObjects(before, value, [...prefix, key]))
    else if (!Object.hasOwn(base, key) || JSON.stringify(before) !== JSON.stringify(value))
      out.push({ path: [...prefix, key], value })
  }
  return out
}

export function applyPatches(
  object: Record<string, unknown>,
  patches: ConfigPatch[],
): Record<string, unknown> {
  for (const patch of patches) {
    if ('remove' in patch) unsetPath(object, patch.path)
    else setPath(object, patch.path, structuredClone(patch.value))
  }
  return object
}

/** The dotted keys whose values differ between two objects (for "restart required"). */
export function changedKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].flatMap((k) => changedKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k))
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix]
}

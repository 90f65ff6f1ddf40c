import type { ShapeChange, JsonType } from '../../shared/contract/drift'

/** How deep and how wide one event's `data` is walked: a payload cannot make the learned shape
 * (memory, the saved JSON) grow without bound. Fields past the limits are not learned. */
export const maxDepth = 8
export const maxFieldsPerEvent = 500
export const maxFieldsPerType = 2_000

/** The JSON type of a value, as the operator's handler sees it after JSON.parse. */
export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'string':
      return 'string'
    case 'number':
      return 'number'
    case 'boolean':
      return 'boolean'
    default:
      return 'object'
  }
}

/** A key as a path segment: plain names as they are, anything that would read as path syntax
 * quoted (`["a.b"]`), so two different fields never share a path. */
function segment(key: string): string {
  return /^[A-Za-z0-9_$-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`
}

function join(parent: string, key: string): string {
  const part = segment(key)
  if (parent === '') return part
  return part.startsWith('[') ? `${parent}${part}` : `${parent}.${part}`
}

/** Every field of one event's `data` with the JSON types it has there: `amount` → number,
 * `customer.address.city` → string, `items[]` → object and `items[].sku` → string (the elements of
 * an array merged). The root is the path "" when `data` is not an object. */
export function fieldsOf(data: unknown): Map<string, Set<JsonType>> {
  const fields = new Map<string, Set<JsonType>>()
  const note = (path: string, type: JsonType) => {
    const types = fields.get(path)
    if (types) types.add(type)
    else if (fields.size < maxFieldsPerEvent) fields.set(path, new Set([type]))
  }
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > maxDepth) return
    if (Array.isArray(value)) {
      for (const element of value) {
        note(`${path}[]`, jsonType(element))
        walk(element, `${path}[]`, depth + 1)
      }
    } else if (value !== null && typeof value === 'object') {
      // Parsed JSON: own enumerable keys only, so `for…in` sees what Object.entries would, without
      // an array of pairs per object (this runs for every committed event, a catch-up's too).
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key]
        const childPath = join(path, key)
        note(childPath, jsonType(child))
        walk(child, childPath, depth + 1)
      }
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) note('', jsonType(data))
  walk(data, '', 0)
  return fields
}

/** What one event type's payloads looked like so far: per field, its JSON types and in how many
 * events it was present (a field present in every event is one a handler may rely on). */
export interface LearnedShape {
  type: string
  events: number
  fields: Map<string, { types: Set<JsonType>; present: number }>
}

export function emptyShape(type: string): LearnedShape {
  return { type, events: 0, fields: new Map() }
}

/** The parent path of a field (`a.b[]` → `a.b`, `a.b` → `a`, `a` → null). */
export function parentOf(path: string): string | null {
  if (path.endsWith('[]')) return path.slice(0, -2)
  const dot = path.lastIndexOf('.')
  const bracket = path.lastIndexOf('[')
  const cut = Math.max(dot, bracket)
  if (cut <= 0) return path === '' ? null : ''
  return path.slice(0, cut)
}

function hasAncestorIn(path: string, paths: Set<string>): boolean {
  for (let p = parentOf(path); p !== null && p !== ''; p = parentOf(p)) if (paths.has(p)) return true
  return false
}

const sorted = (types: Iterable<JsonType>) => [...types].sort()

/** How one event's fields differ from the learned shape: a field never seen (added), a known field
 * with a JSON type never seen for it (retyped), a field present in every earlier event missing
 * (removed). A field below one added, removed or retyped is not reported again: `customer`
 * removed says it, not each of `customer.*`. */
export function compare(shape: LearnedShape, fields: Map<string, Set<JsonType>>): ShapeChange[] {
  if (conforms(shape, fields)) return []
  const added: ShapeChange[] = []
  const retyped: ShapeChange[] = []
  const removed: ShapeChange[] = []
  for (const [path, types] of fields) {
    const known = shape.fields.get(path)
    if (!known) {
      added.push({ kind: 'added', path, from: [], to: sorted(types) })
      continue
    }
    const fresh = [...types].filter((t) => !known.types.has(t))
    if (fresh.length > 0)
      retyped.push({ kind: 'retyped', path, from: sorted(known.types), to: sorted(fresh) })
  }
  for (const [path, known] of shape.fields)
    if (known.present === shape.events && !fields.has(path))
      removed.push({ kind: 'removed', path, from: sorted(known.types), to: [] })
  const covering = new Set([...added, ...retyped, ...removed].map((c) => c.path))
  return [...added, ...retyped, ...removed]
    .filter((c) => !hasAncestorIn(c.path, covering))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Whether the event has every field the shape always had, and no field or type it lacks: nearly
 * every event, told without building a change list (a catch-up compares each event it stores). */
function conforms(shape: LearnedShape, fields: Map<string, Set<JsonType>>): boolean {
  for (const [path, types] of fields) {
    const known = shape.fields.get(path)
    if (!known) return false
    for (const type of types) if (!known.types.has(type)) return false
  }
  for (const [path, known] of shape.fields)
    if (known.present === shape.events && !fields.has(path)) return false
  return true
}

/** Folds one event's fields into the shape (the change, once reported, is part of what is known). */
export function learn(shape: LearnedShape, fields: Map<string, Set<JsonType>>): void {
  shape.events++
  for (const [path, types] of fields) {
    let known = shape.fields.get(path)
    if (!known) {
      if (shape.fields.size >= maxFieldsPerType) continue
      known = { types: new Set(), present: 0 }
      shape.fields.set(path, known)
    }
    for (const t of types) known.types.add(t)
    known.present++
  }
}

/** The shape as saved (JSON): `{ events, fields: { path: [types, present] } }`. */
export function serializeShape(shape: LearnedShape): string {
  const fields: Record<string, [JsonType[], number]> = {}
  for (const [path, f] of shape.fields) fields[path] = [sorted(f.types), f.present]
  return JSON.stringify({ events: shape.events, fields })
}

export function parseShape(type: string, text: string): LearnedShape {
  const saved = JSON.parse(text) as { events: number; fields: Record<string, [JsonType[], number]> }
  const shape = emptyShape(type)
  shape.events = saved.events
  for (const [path, [types, present]] of Object.entries(saved.fields))
    shape.fields.set(path, { types: new Set(types), present })
  return shape
}

/** One change in words: "fee added (string)", "amount retyped number → string", "memo removed". */
export function describeChange(c: ShapeChange): string {
  const name = c.path === '' ? 'data' : c.path
  if (c.kind === 'added') return `${name} added (${c.to.join(' | ')})`
  if (c.kind === 'removed') return `${name} removed (was ${c.from.join(' | ')})`
  return `${name} retyped ${c.from.join(' | ')} → ${c.to.join(' | ')}`
}

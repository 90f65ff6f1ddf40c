import { z } from 'zod'
import { ConfigObject } from './config'

/** Every key of config.json, read off the zod schema itself: the reference table in
 * docs/configuration.md and `watchdesk config keys` are generated from it, so a key added to the
 * schema cannot be missing from the docs (test/shared/config-keys.test.ts compares them). */
export interface ConfigKey {
  /** Dotted, with `<name>` for a key the operator chooses and `[]` for a list's items. */
  key: string
  type: string
  /** The default as JSON, null when there is none. */
  default: string | null
  description: string | null
}

type Schema = {
  type?: string | string[]
  properties?: Record<string, Schema>
  additionalProperties?: Schema | boolean
  propertyNames?: Schema
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  default?: unknown
  description?: string
  pattern?: string
  format?: string
}

function typeOf(s: Schema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (s.const !== undefined) return JSON.stringify(s.const)
  const alternatives = s.anyOf ?? s.oneOf
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' | ')
  if (s.type === 'array') {
    const item = s.items ? typeOf(s.items) : 'value'
    return item.includes('|') ? `(${item})[]` : `${item}[]`
  }
  if (s.type === 'object') return 'object'
  if (s.format === 'uri' || s.pattern?.startsWith('^https?')) return 'URL'
  if (Array.isArray(s.type)) return s.type.join(' | ')
  return s.type ?? 'value'
}

/** A record's keys are the operator's own: service ids for chains, names elsewhere. */
const placeholderOf = (key: string) => (key === 'chains' ? '<service id>' : '<name>')

/** A union of objects (alert channels: desktop, webhook, slack, email) as one object whose keys are
 * every alternative's, each typed by what the alternatives allow. */
function mergeAlternatives(s: Schema): Schema {
  const objects = (s.anyOf ?? s.oneOf)?.filter((a) => a.properties)
  if (!objects || objects.length === 0) return s
  if (objects.length === 1) return objects[0]!
  const properties: Record<string, Schema> = {}
  for (const alternative of objects)
    for (const [name, child] of Object.entries(alternative.properties!)) {
      const seen = properties[name]
      properties[name] = seen ? { anyOf: [...(seen.anyOf ?? [seen]), child] } : child
    }
  return { type: 'object', properties }
}

/** A value that may also be null (`"desktop": null` removes the default alert channel) is
 * documented as the value. */
function withoutNull(s: Schema): Schema {
  const alternatives = s.anyOf ?? s.oneOf
  const values = alternatives?.filter((a) => a.type !== 'null')
  if (!alternatives || !values || values.length !== 1 || values.length === alternatives.length) return s
  return { ...values[0]!, ...(s.description ? { description: s.description } : {}) }
}

function walk(s: Schema, path: string, into: ConfigKey[], inherited: string | null): void {
  const node = mergeAlternatives(withoutNull(s))
  const description = s.description ?? node.description ?? inherited
  if (node.properties) {
    for (const [name, child] of Object.entries(node.properties))
      walk(child, path ? `${path}.${name}` : name, into, null)
    if (typeof node.additionalProperties === 'object')
      walk(node.additionalProperties, `${path}.${placeholderOf(path)}`, into, null)
    return
  }
  if (typeof node.additionalProperties === 'object' && node.type === 'object') {
    const child = withoutNull(node.additionalProperties)
    if (child.properties || (child.anyOf ?? child.oneOf)?.some((a) => a.properties)) {
      walk(child, `${path}.${placeholderOf(path)}`, into, description)
      return
    }
  }
  if (node.anyOf && !node.type) {
    // A key several alternatives share: its types and the first default any of them gives.
    const types = [...new Set(node.anyOf.map(typeOf))].join(' | ')
    const fallback = node.anyOf.map(defaultOf).find((d) => d !== null) ?? null
    into.push({ key: path, type: types, default: defaultOf(s) ?? fallback, description })
    return
  }
  if (node.type === 'array' && node.items?.properties) {
    into.push({ key: path, type: 'list', default: defaultOf(s), description })
    walk(node.items, `${path}[]`, into, null)
    return
  }
  into.push({ key: path, type: typeOf(s), default: defaultOf(s), description })
}

const defaultOf = (s: Schema) => (s.default === undefined ? null : JSON.stringify(s.default))

export function configKeys(): ConfigKey[] {
  const json = z.toJSONSchema(ConfigObject, { io: 'input', unrepresentable: 'any' }) as Schema
  const keys: ConfigKey[] = []
  walk(json, '', keys, null)
  return keys
}

/** The reference table as Markdown (prettier aligns it in the docs; the test compares cells). */
export function configKeysMarkdown(keys: ConfigKey[] = configKeys()): string {
  return [
    '| key | type | default |',
    '| --- | --- | --- |',
    ...keys.map((k) => {
      const type = k.type.replaceAll('|', '\\|')
      const fallback = k.default === null ? '—' : `\`${k.default.replaceAll('|', '\\|')}\``
      return `| \`${k.key}\` | ${type} | ${fallback} |`
    }),
  ].join('\n')
}

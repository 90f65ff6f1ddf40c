import { useState } from 'react'
import type { ReactNode } from 'react'
import type { FieldProblem } from '../../../../shared/contract/settings'
import { useAppStore } from '../../stores/app'
import { useSettingsStore } from '../../stores/settings'

export interface FieldSpec {
  /** The dotted config key (`chains.137.slug`): also the field's label, as written in config.json. */
  key: string
  kind: 'text' | 'number' | 'bool' | 'list' | 'json'
  /** What the key is, in words. */
  hint?: string
  placeholder?: string
  /** Beside the field (a Test button and its answer). `value` is the text in the field now. */
  extra?: (value: string) => ReactNode
}

const read = (config: Record<string, unknown> | undefined, key: string): unknown =>
  key
    .split('.')
    .reduce<unknown>(
      (o, part) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[part] : undefined),
      config,
    )

function asText(value: unknown, kind: FieldSpec['kind']): string {
  if (value === undefined || value === null) return ''
  if (kind === 'list' && Array.isArray(value)) return value.join(', ')
  if (kind === 'json') return JSON.stringify(value)
  return String(value)
}

/** The text of a field as the value to save; undefined means "unset the key". */
function parse(text: string, kind: FieldSpec['kind']): { value?: unknown; problem?: string } {
  const t = text.trim()
  if (kind === 'bool') return { value: t === 'true' }
  if (t === '') return {}
  if (kind === 'number')
    return Number.isFinite(Number(t)) ? { value: Number(t) } : { problem: 'a number is expected' }
  if (kind === 'list')
    return {
      value: t
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    }
  if (kind === 'json') {
    try {
      return { value: JSON.parse(t) as unknown }
    } catch {
      return { problem: 'not valid JSON' }
    }
  }
  return { value: t }
}

/** A group of config keys with one Save: only the fields changed are sent, the back end checks
 * them with the file's schema, and each refusal is shown next to its field in the schema's words. */
export function ConfigForm({ title, fields, label }: { title?: string; fields: FieldSpec[]; label: string }) {
  const config = useAppStore((s) => s.settings?.config)
  const update = useSettingsStore((s) => s.update)
  const [draft, setDraft] = useState<Record<string, string>>({})
  const [problems, setProblems] = useState<FieldProblem[]>([])
  const [saving, setSaving] = useState(false)
  const [savedAt, setSavedAt] = useState<number | null>(null)
  const textOf = (f: FieldSpec) => draft[f.key] ?? asText(read(config, f.key), f.kind)
  const dirty = Object.keys(draft)

  const save = async () => {
    const set: Record<string, unknown> = {}
    const unset: string[] = []
    const local: FieldProblem[] = []
    for (const f of fields) {
      if (!(f.key in draft)) continue
      const parsed = parse(draft[f.key]!, f.kind)
      if (parsed.problem) local.push({ key: f.key, message: parsed.problem })
      else if (parsed.value === undefined) unset.push(f.key)
      else set[f.key] = parsed.value
    }
    if (local.length > 0) return setProblems(local)
    setSaving(true)
    const answer = await update(set, unset)
    setSaving(false)
    setProblems(answer)
    if (answer.length === 0) {
      setDraft({})
      setSavedAt(Date.now())
    }
  }
  const problemOf = (key: string) =>
    problems.filter((p) => p.key === key || p.key.startsWith(`${key}.`)).map((p) => p.message)
  const general = problems.filter(
    (p) => !fields.some((f) => p.key === f.key || p.key.startsWith(`${f.key}.`)),
  )

  return (
    <form
      className="config-form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      {title && <h3>{title}</h3>}
      {fields.map((f) => {
        const text = textOf(f)
        const messages = problemOf(f.key)
        const id = `cfg-${f.key.replace(/\W/g, '-')}`
        return (
          <div className="config-field" key={f.key}>
            <label htmlFor={id} className="mono" title={f.hint}>
              {f.key}
            </label>
            <div className="config-input">
              {f.kind === 'bool' ? (
                <input
                  id={id}
                  type="checkbox"
                  checked={text === '' ? true : text === 'true'}
                  onChange={(e) => setDraft({ ...draft, [f.key]: String(e.target.checked) })}
                />
              ) : (
                <input
                  id={id}
                  className={f.kind === 'number' ? 'num' : 'mono'}
                  inputMode={f.kind === 'number' ? 'numeric' : undefined}
                  value={text}
                  placeholder={f.placeholder}
                  aria-invalid={messages.length > 0 || undefined}
                  aria-describedby={messages.length > 0 ? `${id}-problem` : undefined}
                  onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                />
              )}
              {f.extra?.(text)}
            </div>
            {f.hint && <span className="config-hint hint">{f.hint}</span>}
            {messages.length > 0 && (
              <p className="field-error" id={`${id}-problem`} role="alert">
                {f.key}: {messages.join('; ')}
              </p>
            )}
          </div>
        )
      })}
      {general.map((p) => (
        <p className="field-error" role="alert" key={p.key + p.message}>
          {p.key ? `${p.key}: ` : ''}
          {p.message}
        </p>
      ))}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving || dirty.length === 0}>
          Save
        </button>
        {dirty.length > 0 ? (
          <span className="hint">{dirty.length} changed</span>
        ) : savedAt !== null ? (
          <span className="hint" role="status">
            Saved to config.json
          </span>
        ) : null}
      </div>
    </form>
  )
}

/** A status in words and colour; the colour comes from the tone, the word is always shown. */
export type Tone = 'good' | 'warn' | 'bad' | 'muted' | 'info'

export function StatusBadge({ tone, label, title }: { tone: Tone; label: string; title?: string }) {
  return (
    <span className={`status status-${tone}`} title={title}>
      <span className="status-dot" aria-hidden="true" />
      {label}
    </span>
  )
}

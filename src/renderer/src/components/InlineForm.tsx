import type { ReactNode } from 'react'

/** A one-line form (name, value, a button): Enter or the submit button runs `onSubmit`, never a
 * page load. */
export function InlineForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault()
        onSubmit()
      }}
    >
      {children}
    </form>
  )
}

/** A labelled text input of an inline form. `secret`: a key or token typed in, masked, never
 * autocompleted or spell-checked (it goes to the keychain and never comes back). */
export function TextField({
  label,
  placeholder,
  value,
  onChange,
  size,
  secret = false,
}: {
  label: string
  placeholder: string
  value: string
  onChange: (value: string) => void
  size: number
  secret?: boolean
}) {
  return (
    <input
      aria-label={label}
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      size={size}
      {...(secret ? { type: 'password', autoComplete: 'off', spellCheck: false } : {})}
    />
  )
}

/** The one reading of the `*` patterns the config takes (forward targets' `events`, desktop and
 * alert notification types, `drift.acknowledged`): `*` stands for any run of characters, dots
 * included; every other character stands for itself; the pattern matches the whole text. */

const compiled = new Map<string, RegExp>()

/** The pattern as a regular expression (compiled once per pattern: patterns come from config). */
export function globRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern)
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')
    re = new RegExp(`^${body}$`)
    compiled.set(pattern, re)
  }
  return re
}

/** Whether any of the patterns matches the whole text. */
export function matchesAnyGlob(patterns: readonly string[], text: string): boolean {
  return patterns.some((pattern) => globRegExp(pattern).test(text))
}

/** What a forward target's event pattern may hold (`funding.*`, `card.authorization.request`,
 * `*`): no `?` or `[`, so SQLite's GLOB in the commit transaction reads it as `globRegExp` does. */
export const eventPatternSyntax = /^[A-Za-z0-9_.*-]{1,200}$/

/** Event-type patterns of a forward target: a type (`funding.completed`) or a prefix ending in `*`
 * (`funding.*`); `*` alone is every type. The commit transaction matches the same patterns with
 * SQLite's GLOB (the config allows no `?` or `[`, so both agree). */
export const allEvents = ['*']

const cache = new Map<string, RegExp>()

function regexOf(pattern: string): RegExp {
  let re = cache.get(pattern)
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')
    re = new RegExp(`^${body}$`)
    cache.set(pattern, re)
  }
  return re
}

export function typeMatches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => regexOf(p).test(type))
}

const validPattern = /^[A-Za-z0-9_.*-]{1,200}$/

/** `--events funding.*,card.created` → patterns, or the first invalid one. */
export function parsePatterns(text: string): { ok: true; patterns: string[] } | { ok: false; bad: string } {
  const patterns = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
  const bad = patterns.find((p) => !validPattern.test(p))
  return bad === undefined ? { ok: true, patterns } : { ok: false, bad }
}

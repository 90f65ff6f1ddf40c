/** Event-type patterns of a forward target: a type (`funding.completed`) or a prefix ending in `*`
 * (`funding.*`); `*` alone is every type. The commit transaction matches the same patterns with
 * SQLite's GLOB (the config allows no `?` or `[`, so both agree). */
import { eventPatternSyntax, matchesAnyGlob } from '../../shared/glob.ts'

export const allEvents = ['*']

export function typeMatches(patterns: readonly string[], type: string): boolean {
  return matchesAnyGlob(patterns, type)
}

/** `--events funding.*,card.created` → patterns, or the first invalid one. */
export function parsePatterns(text: string): { ok: true; patterns: string[] } | { ok: false; bad: string } {
  const patterns = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
  const bad = patterns.find((p) => !eventPatternSyntax.test(p))
  return bad === undefined ? { ok: true, patterns } : { ok: false, bad }
}

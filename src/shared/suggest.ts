import { distance } from 'fastest-levenshtein'

/** The candidate closest to a mistyped `word`, or null when none is close: within a third of the
 * word's length (at least one edit), the rule commander uses for commands and flags. */
export function closest(word: string, candidates: readonly string[]): string | null {
  const limit = Math.max(1, Math.floor(word.length / 3))
  let best: { candidate: string; d: number } | null = null
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && (!best || d < best.d)) best = { candidate, d }
  }
  return best?.candidate ?? null
}

/** " Did you mean X?" when one is close, else "". */
export const didYouMean = (word: string, candidates: readonly string[]): string => {
  const c = closest(word, candidates)
  return c ? ` Did you mean ${c}?` : ''
}

import type { Corroboration, SourceExclusion } from '../../../shared/contract/chains'
import type { ReferenceReading } from './reference'

/** The corroborated head, pure: from the service node and the references that passed their own
 * checks, the highest height that at least `quorum` of them have reached or passed (the
 * quorum-th highest head). The quorum is at most the number of references left: a single
 * reference still measures the lag (as `referenceUrl` did), guarded by the "ahead" rule below.
 * A single source far ahead never defines it, and the service node being the one ahead is never
 * lag (it only raises the heads that reached a height, never the quorum needed).
 *
 * When every source's head lies more than N blocks from every other's, the sources disagree: no
 * head is corroborated. Otherwise each reference is explained: ahead of every other source by
 * more than N blocks (another chain's height, a fork), behind the corroborated head by more
 * than N, or counted. */

export interface Verdict {
  counted: boolean
  reason: SourceExclusion | null
  detail: string
}

export interface CorroboratedView {
  state: Corroboration['state']
  head: number | null
  counted: number
  quorum: number
  /** Per reference, by name. */
  verdicts: Map<string, Verdict>
  note: string
}

export function corroborate(
  serviceHead: number | null,
  references: ReferenceReading[],
  quorum: number,
  n: number,
): CorroboratedView {
  const verdicts = new Map<string, Verdict>()
  for (const r of references)
    if (r.excluded)
      verdicts.set(r.name, { counted: false, reason: r.excluded.reason, detail: r.excluded.detail })
  let remaining: Candidate[] = [
    ...(serviceHead === null ? [] : [{ name: null, head: serviceHead }]),
    ...references.flatMap((r) => (!r.excluded && r.head !== null ? [{ name: r.name, head: r.head }] : [])),
  ]
  if (remaining.some((c) => c.name !== null) && remaining.length >= 2 && allApart(remaining, n))
    return disagree(remaining, verdicts, quorum, n, serviceHead)
  remaining = excludeAhead(remaining, verdicts, n)
  const referencesLeft = remaining.filter((c) => c.name !== null).length
  const q = Math.max(1, Math.min(quorum, referencesLeft))
  if (referencesLeft === 0) {
    const why = references.length === 0 ? 'no reference is configured' : 'no reference passes its checks'
    return {
      state: 'estimated',
      head: null,
      quorum: q,
      verdicts,
      counted: remaining.length,
      note: `Lag estimated from block age and block time: ${why}.`,
    }
  }
  const head = remaining.map((c) => c.head).sort((a, b) => b - a)[q - 1]!
  let countedN = 0
  for (const c of remaining) {
    if (c.name !== null && c.head < head - n)
      verdicts.set(c.name, {
        counted: false,
        reason: 'behind',
        detail: `Its head ${c.head} is ${head - c.head} blocks behind the corroborated head (more than ${n}).`,
      })
    else {
      if (c.name !== null) verdicts.set(c.name, counted)
      countedN++
    }
  }
  return {
    state: 'corroborated',
    head,
    quorum: q,
    verdicts,
    counted: countedN,
    note: `Head ${head}: reached by at least ${q} of ${remaining.length} sources.`,
  }
}

interface Candidate {
  /** null: the service node. */
  name: string | null
  head: number
}

/** Every pair of sources further apart than n blocks. */
function allApart(candidates: Candidate[], n: number): boolean {
  const heads = candidates.map((c) => c.head).sort((a, b) => a - b)
  return heads.every((h, i) => i === 0 || h - heads[i - 1]! > n)
}

/** One reference at a time, the highest first: a reference ahead of every other source by more
 * than n blocks is left out (the service node is never: its being ahead is not lag). */
function excludeAhead(candidates: Candidate[], verdicts: Map<string, Verdict>, n: number): Candidate[] {
  let left = candidates
  for (;;) {
    const top = left.reduce<Candidate | null>((a, c) => (a === null || c.head > a.head ? c : a), null)
    if (!top || top.name === null || left.length < 2) return left
    const highest = Math.max(...left.filter((c) => c !== top).map((c) => c.head))
    if (top.head <= highest + n) return left
    verdicts.set(top.name, {
      counted: false,
      reason: 'ahead',
      detail: `Its head ${top.head} is ${top.head - highest} blocks ahead of every other source (more than ${n}): another chain's height or a fork.`,
    })
    left = left.filter((c) => c !== top)
  }
}

function disagree(
  candidates: Candidate[],
  verdicts: Map<string, Verdict>,
  quorum: number,
  n: number,
  serviceHead: number | null,
): CorroboratedView {
  for (const c of candidates)
    if (c.name !== null)
      verdicts.set(c.name, {
        counted: false,
        reason: 'disagree',
        detail: `Its head ${c.head} is more than ${n} blocks from every other source's.`,
      })
  const heads = candidates.map((c) => c.head).sort((a, b) => b - a)
  return {
    state: 'disagree',
    head: null,
    quorum,
    verdicts,
    counted: serviceHead === null ? 0 : 1,
    note: `Sources disagree: heads ${heads.join(', ')}, no two within ${n} blocks. Lag estimated from block age until they agree.`,
  }
}

const counted: Verdict = { counted: true, reason: null, detail: 'Counted.' }

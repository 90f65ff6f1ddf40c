import type { ChainStatus, SourceExclusion } from '../../../../shared/contract/chains'
import type { Tone } from '../Status'

/** Words for a source's exclusion and the chain's corroboration, shared by the view and drawer. */
export const exclusionWords: Record<SourceExclusion, string> = {
  wrong_chain: 'wrong chain id',
  malformed: 'malformed answers',
  ahead: 'ahead of all others',
  behind: 'behind',
  stalled: 'stalled',
  errors: 'errors',
  rate_limited: 'rate limited',
  disagree: 'disagrees',
}

export const corroborationWords: Record<
  ChainStatus['corroboration']['state'],
  { tone: Tone; label: string }
> = {
  corroborated: { tone: 'good', label: 'head corroborated' },
  estimated: { tone: 'muted', label: 'lag estimated' },
  disagree: { tone: 'warn', label: 'sources disagree' },
}

/** "far: ahead of all others; old: stalled" — the references left out, for the Chains view. */
export function excludedSummary(chain: ChainStatus): string {
  return chain.sources
    .filter((s) => s.role === 'reference' && s.state === 'excluded' && s.reason !== 'disagree')
    .map((s) => `${s.name} excluded: ${exclusionWords[s.reason ?? 'errors']}`)
    .join('; ')
}

import type { CorroboratedView } from './corroborate'
import type { BlockAge } from './head-age'

/** The service node's lag: blocks and seconds behind the corroborated head (never below 0: ahead
 * is not lag), or, when no head is corroborated (no reference, none passes, or they disagree),
 * estimated from the head block's age and the block time. */

export interface Lag {
  blocks: number
  seconds: number
  /** The corroborated head, or null when the lag is estimated. */
  referenceHead: number | null
}

export function lagOf(age: BlockAge, view: CorroboratedView, blockTimeMs: number): Lag {
  const blockSeconds = blockTimeMs / 1000
  if (view.state === 'corroborated' && view.head !== null) {
    const blocks = Math.max(0, view.head - age.head)
    return { blocks, seconds: blocks * blockSeconds, referenceHead: view.head }
  }
  const seconds = Math.max(0, age.seconds - blockSeconds)
  return { blocks: Math.round(seconds / blockSeconds), seconds, referenceHead: null }
}

import type { Config } from '../../shared/config'
import type { PollClock } from '../../shared/clock'
import { maskSecret } from '../../shared/mask'
import { createPoller } from './poller'
import type { Poller } from './poller'
import type { TimeReferences } from '../../shared/time-references'
import { resolveTargets } from './targets'

/** Removes the project uid from any text before it is shown or stored (a node may echo the URL). */
export function uidScrubber(uid: string | null): (text: string) => string {
  if (!uid) return (text) => text
  const forms = [...new Set([uid, encodeURIComponent(uid)])]
  return (text) => forms.reduce((out, form) => out.split(form).join(maskSecret(uid)), text)
}

/** Builds a poller over the current config and project uid (also used by `watchdesk chains`). */
export function pollerFor(
  config: Config,
  uid: string | null,
  onRound?: Parameters<typeof createPoller>[0]['onRound'],
  uidProblem: string | null = null,
  clock?: PollClock,
  /** A one-shot check (`watchdesk chains`): one round cannot confirm, so a bad poll counts at once. */
  oneShot = false,
  timeRefs?: TimeReferences,
): Poller {
  const targets = resolveTargets(config, uid, uidProblem)
  return createPoller({
    targets: oneShot ? targets.map((t) => ({ ...t, confirmFailures: 1 })) : targets,
    scrub: uidScrubber(uid),
    onRound,
    clock,
    timeRefs,
  })
}

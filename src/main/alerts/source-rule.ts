import type { PollClock } from '../../shared/clock'
import type { SourceStatus } from '../../shared/contract/sources'
import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { engineConfirm } from './rules'
import type { Condition } from './rules'

const sourceCheckMs = 5_000

function sourceCondition(
  name: string,
  active: boolean,
  title: string,
  body: string,
  gone?: string,
): Condition {
  return {
    rule: 'relay.source',
    subject: `source:${name}`,
    serviceId: null,
    name: `Relay source ${name}`,
    active,
    title,
    body,
    confirm: engineConfirm,
    gone,
  }
}

/** The rule "relay source unreachable" over one look at the sources' status: a source that does
 * not answer or refuses the token is active (nothing arrives either way); one in `watched` that is
 * no longer listed closes as "source removed" (not a recovery: nobody saw it answer). */
export function sourceConditions(
  sources: SourceStatus[],
  watched: ReadonlySet<string>,
): { conditions: Condition[]; watched: Set<string> } {
  const seen = new Set<string>()
  const conditions: Condition[] = []
  for (const s of sources) {
    seen.add(s.name)
    conditions.push(
      sourceCondition(
        s.name,
        s.state === 'unreachable' || s.state === 'refused',
        s.state === 'refused'
          ? `Relay source ${s.name} refuses the token`
          : `Relay source ${s.name} unreachable`,
        s.problem ?? `The relay at ${s.url} does not answer.`,
      ),
    )
  }
  for (const name of watched)
    if (!seen.has(name))
      conditions.push(
        sourceCondition(
          name,
          false,
          `Relay source ${name} removed`,
          'Removed from sources.',
          'source removed',
        ),
      )
  return { conditions, watched: seen }
}

/** Observes the sources every 5 s and hands the rule's conditions to the alerts engine, which
 * confirms them like the other rules (3 observations and 15 s), so a relay that restarts is no
 * outage. Wired where the capabilities meet (services.ts). */
export function watchSources(
  list: () => SourceStatus[],
  observe: (condition: Condition) => void,
  clock: PollClock,
): Disposable {
  let watched: ReadonlySet<string> = new Set()
  let cancel: (() => void) | null = null
  const check = () => {
    const next = sourceConditions(list(), watched)
    for (const c of next.conditions) observe(c)
    watched = next.watched
    cancel = clock.after(sourceCheckMs, check)
  }
  check()
  return toDisposable(() => cancel?.())
}

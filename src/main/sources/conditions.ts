import type { SourceStatus } from '../../shared/contract/sources'
import { engineConfirm } from '../contribution'
import type { Condition, ConditionSource } from '../contribution'

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

/** The rule "relay source unreachable" for the alerts' status loop, which confirms it like the
 * other rules (3 observations and 15 s), so a relay that restarts is no outage. */
export function sourceConditionSource(list: () => SourceStatus[]): ConditionSource {
  let watched: ReadonlySet<string> = new Set()
  return () => {
    const next = sourceConditions(list(), watched)
    watched = next.watched
    return next.conditions
  }
}

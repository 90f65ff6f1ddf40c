import type { ForwardStatus } from '../../shared/contract/forward'
import type { Condition, ConditionSource } from '../contribution'

function targetCondition(name: string, active: boolean, title: string, body: string): Condition {
  return {
    rule: 'forward.gone',
    subject: `forward:${name}`,
    serviceId: null,
    name: `Forward target ${name}`,
    active,
    title,
    body,
  }
}

/** The alert rules "forward target gone" and "forward worker crash loop" over the forward status,
 * for the alerts' status loop. A target that answered 410 Gone is stopped by the forwarder (a
 * definite answer, so no confirmation); the incident closes when the target delivers again (its
 * URL changed, it was enabled again), is disabled or is removed. */
export function forwardConditions(status: () => ForwardStatus): ConditionSource {
  let watched = new Set<string>()
  let workerLooping = false
  return () => {
    const conditions: Condition[] = []
    const seen = new Set<string>()
    const s = status()
    // The worker that carries every target keeps stopping: the forward status says so with the
    // cause, and so does this alert (closed once a minute passed without a restart).
    if (s.worker.health === 'crash_loop' || workerLooping) {
      workerLooping = s.worker.health === 'crash_loop'
      conditions.push({
        rule: 'forward.worker',
        subject: 'forward:worker',
        serviceId: null,
        name: 'Forward worker',
        active: workerLooping,
        title: workerLooping
          ? 'Forwarding stopped: the forward worker keeps restarting'
          : 'Forward worker running again',
        body: workerLooping ? (s.problem ?? '') : 'No restart for a minute.',
      })
    }
    for (const t of s.targets) {
      if (t.adhoc) continue
      seen.add(t.name)
      if (t.health === 'stopped')
        conditions.push(
          targetCondition(
            t.name,
            true,
            `Forward target ${t.name} stopped: 410 Gone`,
            t.lastError ?? `${t.url} answered 410 Gone.`,
          ),
        )
      // Over only once it delivered again (or was disabled): after a restart, a target not tried
      // yet has not recovered.
      else if (t.lastOkAt !== null)
        conditions.push(
          targetCondition(
            t.name,
            false,
            `Forward target ${t.name} forwarding again`,
            `${t.url} took an event.`,
          ),
        )
      else if (!t.enabled)
        conditions.push(
          targetCondition(t.name, false, `Forward target ${t.name} disabled`, 'Disabled in forward.targets.'),
        )
    }
    for (const name of watched)
      if (!seen.has(name))
        conditions.push(
          targetCondition(name, false, `Forward target ${name} removed`, 'Removed from forward.targets.'),
        )
    watched = seen
    return conditions
  }
}

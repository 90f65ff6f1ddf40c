import type { forwardMethods } from '../../shared/contract/forward'
import { ok } from '../../shared/result'
import type { AppContext } from '../context'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

export function forwardApi(
  _ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof forwardMethods> {
  const { forward } = services
  return {
    'forward.status': async () => ok(forward.status()),
    'forward.event': async ({ id }) => forward.event(id),
    'forward.states': async ({ ids }) => ok({ states: forward.states(ids) }),
    'forward.replay': async (request) => forward.replay(request),
    'forward.replayEdited': async ({ id, body, destination }) => forward.replayEdited(id, body, destination),
    'forward.targets.set': async ({ name, target }) => forward.setTarget(name, target),
  }
}

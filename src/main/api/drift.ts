import type { driftMethods } from '../../shared/contract/drift'
import { err, ok } from '../../shared/result'
import type { AppContext } from '../context'
import { addAcknowledged, entriesToAcknowledge } from '../drift'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

export function driftApi(ctx: AppContext, services: Services): Pick<ApiHandlers, keyof typeof driftMethods> {
  const { drift } = services
  return {
    'drift.status': async () => ok(drift.status()),
    'drift.shape': async ({ type }) => {
      const shape = drift.shape(type)
      if (!shape)
        return err(
          'not_found',
          `No event of type ${type} has been read yet: its shape is learned from the events that arrive.`,
        )
      return ok({
        type,
        events: shape.events,
        fields: [...shape.fields].map(([path, f]) => ({
          path,
          types: [...f.types].sort(),
          present: f.present,
        })),
      })
    },
    'drift.acknowledge': async ({ id }) => {
      const record = drift.record(id)
      if (!record)
        return err(
          'not_found',
          `There is no recent shape change ${id}: reload the Events view and try again.`,
        )
      const entries = entriesToAcknowledge(ctx.config().drift, record)
      if (entries.length > 0) {
        const saved = await ctx.updateConfig(addAcknowledged(entries))
        if (!saved.ok) return saved
      }
      drift.acknowledgementsChanged()
      return ok(drift.status())
    },
  }
}

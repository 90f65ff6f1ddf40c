import { err, ok } from '../../shared/result'
import { describeChannel, readChannelSecret, storeChannelSecret } from '../alerts'
import type { alertsMethods } from '../../shared/contract/alerts'
import type { AppContext } from '../context'
import type { ApiHandlers } from '../transport/dispatch'
import type { Services } from '../services'

export function alertsApi(
  ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof alertsMethods> {
  const { alerts, chains } = services
  return {
    'alerts.incidents': async (filter) => {
      const r = alerts.incidents(filter)
      return r.ok ? ok({ incidents: r.value }) : r
    },
    'alerts.log': async ({ limit, incidentId }) => {
      const r = alerts.log(limit, incidentId)
      return r.ok ? ok({ records: r.value }) : r
    },
    'alerts.channels': async () => ok(await alerts.channels()),
    'alerts.channels.secret': async ({ name, secret }) => {
      const config = ctx.config().alerts.channels[name]
      if (!config)
        return err(
          'not_found',
          `There is no alert channel "${name}": add it with "watchdesk alerts channel set ${name} --type webhook" (or slack, email).`,
        )
      const stored = await storeChannelSecret(name, config, secret, ctx.secrets)
      if (!stored.ok) return stored
      return ok(
        describeChannel(name, config, await readChannelSecret(name, config, ctx.secrets, services.env)),
      )
    },
    'alerts.test': async ({ channel }) => {
      const r = await alerts.test(channel)
      return r.ok ? ok({ results: r.value }) : r
    },
    'alerts.mutes': async () => ok({ mutes: alerts.mutes() }),
    'alerts.mute': async ({ minutes, serviceIds, reason }) => alerts.mute(minutes, serviceIds, reason),
    'alerts.unmute': async ({ id }) => alerts.unmute(id),
    'alerts.shown': async ({ ids }) => alerts.shown(ids),
    'alerts.missed': async () => {
      const r = alerts.missed()
      return r.ok ? ok({ records: r.value }) : r
    },
    'alerts.uptime': async ({ serviceId }) => chains.uptime(serviceId),
  }
}

import { relaySecret } from '../relay/helpers'

/** A console that follows the relay `office` (its sync URL and token), forwards every event to the
 * target `app`, and sends its alerts to the webhook channel `hook`: the set-up of the join tests
 * (one event through listener, relay, alerts, forward and export). */
export function joinConsole(
  dataDir: string,
  relay: { syncUrl: string; token: string },
  to: { app: string; hook: string },
) {
  return {
    dataDir,
    config: {
      sources: { office: { url: relay.syncUrl } },
      forward: { targets: { app: { url: to.app } } },
      alerts: { channels: { hook: { type: 'webhook' as const } } },
    },
    secrets: {
      'source-token:office': relay.token,
      'webhook-secret:wh_relay': relaySecret,
      'alert-channel:hook': to.hook,
    },
  }
}

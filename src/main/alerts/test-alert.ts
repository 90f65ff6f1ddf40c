import type { ChannelConfig } from '../../shared/alerts/config'
import type { Alert } from '../../shared/contract/alerts'

/** The alert `alerts.test` and `watchdesk alerts test` send: one text for the console and the CLI. */
export function testAlert(t: number): Alert {
  return {
    t,
    rule: 'test',
    subject: 'test',
    serviceId: null,
    kind: 'test',
    severity: 'info',
    title: 'watchdesk test alert',
    body: 'If you read this, the channel works.',
    incidentId: null,
    durationMs: null,
  }
}

/** The channels a test goes to: the one named, or every enabled one. */
export function testChannelNames(
  channels: Record<string, ChannelConfig>,
  channel: string | undefined,
): string[] {
  return channel !== undefined ? [channel] : Object.keys(channels).filter((n) => channels[n]!.enabled)
}

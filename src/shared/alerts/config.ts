import { z } from 'zod'
import { defaultNotificationPatterns } from '../events'

/** Alerts' config keys (spread into the Config schema as `alerts`). Non-secret only: channel URLs
 * and SMTP passwords live in the keychain (`alert-channel:<name>`) or the environment
 * (`WATCHDESK_ALERT_CHANNEL_<NAME>`). */

export const channelTypes = ['desktop', 'webhook', 'slack', 'email'] as const
export type ChannelType = (typeof channelTypes)[number]

const common = {
  /** Rule ids this channel receives (default: every rule). */
  rules: z.array(z.string().min(1)).optional(),
  enabled: z.boolean().default(true),
}

export const ChannelConfig = z.discriminatedUnion('type', [
  z.object({ type: z.literal('desktop'), ...common }).strict(),
  z
    .object({
      type: z.literal('webhook'),
      ...common,
      timeoutMs: z.number().int().min(100).max(60_000).default(5_000),
    })
    .strict(),
  z
    .object({
      type: z.literal('slack'),
      ...common,
      timeoutMs: z.number().int().min(100).max(60_000).default(5_000),
    })
    .strict(),
  z
    .object({
      type: z.literal('email'),
      ...common,
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(587),
      /** TLS from the first byte (465); otherwise STARTTLS when the server offers it. */
      secure: z.boolean().default(false),
      user: z.string().optional(),
      from: z.string().min(3),
      to: z.array(z.string().min(3)).min(1),
    })
    .strict(),
])
export type ChannelConfig = z.infer<typeof ChannelConfig>

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day is HH:MM (24 h)')
export const weekdays = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const

/** A maintenance window: once (`from`, `to`), or every week (`weekdays`, `start`, `end`, local
 * time; an `end` before `start` runs past midnight). Optionally only some chains or rules. */
export const MuteWindow = z
  .object({
    from: z.string().datetime({ offset: true }).optional(),
    to: z.string().datetime({ offset: true }).optional(),
    weekdays: z.array(z.enum(weekdays)).min(1).optional(),
    start: hhmm.optional(),
    end: hhmm.optional(),
    chains: z.array(z.number().int().positive()).optional(),
    rules: z.array(z.string().min(1)).optional(),
    reason: z.string().max(200).optional(),
  })
  .strict()
  .refine(
    (w) => (w.from !== undefined && w.to !== undefined) || (w.start !== undefined && w.end !== undefined),
    {
      message: 'a mute window needs from and to (once) or start and end (recurring, with optional weekdays)',
    },
  )
export type MuteWindow = z.infer<typeof MuteWindow>

export const defaultDesktopChannel: ChannelConfig = { type: 'desktop', enabled: true }

function withDesktopChannel(channels: Record<string, ChannelConfig | null>): Record<string, ChannelConfig> {
  const all = 'desktop' in channels ? channels : { ...channels, desktop: defaultDesktopChannel }
  return Object.fromEntries(
    Object.entries(all).filter((entry): entry is [string, ChannelConfig] => entry[1] !== null),
  )
}

export const AlertsConfig = z
  .object({
    /** The desktop channel is there unless removed explicitly (`"desktop": null`): adding a
     * webhook channel does not silently take the desktop notifications away. */
    channels: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'a channel name is letters, digits, _ and -'),
        ChannelConfig.nullable(),
      )
      .default({})
      .transform(withDesktopChannel),
    /** A reminder while an incident lasts, every this many minutes (0: none). */
    repeatMinutes: z.number().min(0).max(10_080).default(60),
    mute: z.array(MuteWindow).default([]),
    /** Event types that raise an alert (and count in the tray's unseen alerting events); `*`
     * matches any run of characters. Older config files name it `notifications.eventTypes`. */
    eventTypes: z.array(z.string().min(1)).default([...defaultNotificationPatterns]),
    /** Signature rejections per minute above which the listener alerts (a wrong secret or an attack). */
    rejectionsPerMinute: z.number().int().min(1).default(10),
    /** Minutes without an event, per endpoint id (`*` for any), before alerting; off when empty. */
    quietMinutes: z.record(z.string(), z.number().min(1)).default({}),
    /** How long before deliveries of an outage use their last retry (and are marked failed, the
     * endpoint maybe disabled) the `endpoint.disable_risk` warning goes out. */
    disablementLeadMinutes: z.number().int().min(1).max(1_440).default(120),
    /** chain.error_rate and chain.latency need at least this many failed polls (slow answers) in
     * their window besides the rate (p95) above the limit: one blip is no incident. */
    minFailures: z.number().int().min(1).max(1000).default(3),
    /** Rule ids switched off. */
    disabledRules: z.array(z.string()).default([]),
  })
  .strict()
export type AlertsConfig = z.infer<typeof AlertsConfig>

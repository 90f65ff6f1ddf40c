import { z } from 'zod'
import { channelTypes } from '../alerts/config'
import { method } from './define'

export const AlertSeverity = z.enum(['critical', 'warning', 'info'])
export type AlertSeverity = z.infer<typeof AlertSeverity>

/** fired: an incident opened; escalated: a more severe cause took over the same incident (one
 * subject, one incident: "error rate" becoming "down" is an update, not a second page); reminder:
 * it still lasts (`alerts.repeatMinutes`); recovered: it
 * closed because its subject works again (with its duration); closed: it ended without recovering
 * (its subject was removed, e.g. a relay source); event: a one-off (an event type, a reorg);
 * test: "send test". */
export const AlertKind = z.enum(['fired', 'escalated', 'reminder', 'recovered', 'closed', 'event', 'test'])
export type AlertKind = z.infer<typeof AlertKind>

/** An event an alert covers: its id and type, and where the console shows it. */
export const AlertedEvent = z.object({
  id: z.string(),
  type: z.string(),
  seq: z.number().int(),
  /** Opens this event in the console (`#/events/<id>`), when a console can open links. */
  link: z.string().optional(),
})
export type AlertedEvent = z.infer<typeof AlertedEvent>

/** One alert as every channel receives it (the webhook channel POSTs exactly this JSON). */
export const Alert = z.object({
  t: z.number(),
  rule: z.string(),
  /** What it is about: `chain:137`, `listener`, `storage`, `event:evt_…`, `endpoint:wh_…`. */
  subject: z.string(),
  serviceId: z.number().int().nullable(),
  kind: AlertKind,
  severity: AlertSeverity,
  title: z.string(),
  body: z.string(),
  incidentId: z.number().int().nullable(),
  /** For recovered: how long the incident lasted. */
  durationMs: z.number().nullable(),
  /** For an incident's alerts: every rule that has been one of its causes, so a channel that takes
   * only some rules gets the recovery of an incident it was paged for. */
  causes: z.array(z.string()).optional(),
  /** For an event alert: every event it covers (one, or all of a burst), oldest first. */
  events: z.array(AlertedEvent).optional(),
  /** A desktop alert in serve mode: its alert log row, which the page confirms with `alerts.shown`
   * once it displayed it (until then the log says "not shown"). */
  logId: z.number().int().optional(),
})
export type Alert = z.infer<typeof Alert>

/** An alert's fate on one channel: sent, failed (with why) or muted by a maintenance window. */
export const AlertRecord = z.object({
  id: z.number().int(),
  t: z.number(),
  rule: z.string(),
  subject: z.string(),
  kind: AlertKind,
  title: z.string(),
  channel: z.string(),
  /** not_shown: a desktop alert in serve mode that no open console page displayed (yet). */
  result: z.enum(['sent', 'failed', 'muted', 'not_shown']),
  detail: z.string().nullable(),
  incidentId: z.number().int().nullable(),
  /** The ids of the events an event alert covers (all of a burst). */
  events: z.array(z.string()).optional(),
})
export type AlertRecord = z.infer<typeof AlertRecord>

/** One step of an incident's timeline: a cause opened it, joined it, took it over (escalated when
 * more severe, changed when not), cleared while others remained, or the incident ended. */
export const IncidentCause = z.object({
  t: z.number(),
  kind: z.enum(['opened', 'joined', 'escalated', 'changed', 'cleared', 'resolved', 'closed']),
  rule: z.string(),
  severity: AlertSeverity,
  title: z.string(),
})
export type IncidentCause = z.infer<typeof IncidentCause>

export const Incident = z.object({
  id: z.number().int(),
  rule: z.string(),
  subject: z.string(),
  serviceId: z.number().int().nullable(),
  severity: AlertSeverity,
  title: z.string(),
  detail: z.string(),
  openedAt: z.number(),
  closedAt: z.number().nullable(),
  durationMs: z.number().nullable(),
  /** How it ended: "recovered", or why it closed without recovering ("source removed"); null while open. */
  closedReason: z.string().nullable(),
  /** Alerts recorded for it (sent, failed or muted) on every channel. */
  alerts: z.number().int(),
  /** Its timeline of causes, oldest first (the rule and title above are the current headline). */
  causes: z.array(IncidentCause),
})
export type Incident = z.infer<typeof Incident>

export const ChannelInfo = z.object({
  name: z.string(),
  type: z.enum(channelTypes),
  enabled: z.boolean(),
  /** Where it goes, masked (`https://hooks.slack.com/…a9f2`, `ops@example.com`). */
  target: z.string().nullable(),
  secret: z.enum(['keychain', 'environment', 'missing', 'none']),
  /** Why it cannot send, with the fix; null when it can. */
  problem: z.string().nullable(),
  rules: z.array(z.string()).nullable(),
})
export type ChannelInfo = z.infer<typeof ChannelInfo>

export const RuleInfo = z.object({
  id: z.string(),
  label: z.string(),
  defaultText: z.string(),
  enabled: z.boolean(),
  severity: AlertSeverity,
})
export type RuleInfo = z.infer<typeof RuleInfo>

export const MuteInfo = z.object({
  id: z.string(),
  /** config: a maintenance window in config.json; console: set in the console; mcp: by an agent
   * over `watchdesk mcp --allow-write`. */
  source: z.enum(['config', 'console', 'mcp']),
  /** One sentence: "every Sun 02:00–04:00, chains 1, 137" or "until 15:04 (mute 1 h)". */
  description: z.string(),
  chains: z.array(z.number().int()).nullable(),
  activeNow: z.boolean(),
  /** For a console mute: when it ends. */
  until: z.number().nullable(),
})
export type MuteInfo = z.infer<typeof MuteInfo>

export const UptimeBar = z.object({ t: z.number(), polls: z.number().int(), up: z.number().int() })

export const Uptime = z.object({
  serviceId: z.number().int(),
  /** Fraction of polls not down, stalled or on the wrong network; null without polls. */
  ratio24h: z.number().nullable(),
  ratio7d: z.number().nullable(),
  ratio30d: z.number().nullable(),
  /** The first poll on record (within 30 days), null without any: a window that starts before it
   * is not full, and its ratio covers only `at - dataSince` (describeUptime says so). */
  dataSince: z.number().nullable(),
  /** When the figures were computed. */
  at: z.number(),
  /** The last 24 hours, oldest first, one bar per hour (the heartbeat bar). */
  hours: z.array(UptimeBar),
})
export type Uptime = z.infer<typeof Uptime>

const limit = z.number().int().min(1).max(1000).default(200)

export const alertsMethods = {
  'alerts.incidents': method(
    'Incidents, newest first: open ones and closed ones with their duration; filter by chain, rule or open',
    z
      .object({
        serviceId: z.number().int().positive().optional(),
        rule: z.string().max(60).optional(),
        open: z.boolean().optional(),
        limit,
      })
      .strict(),
    z.object({ incidents: z.array(Incident) }),
  ),
  'alerts.log': method(
    'Every alert sent, failed or muted, newest first',
    z.object({ limit, incidentId: z.number().int().optional() }).strict(),
    z.object({ records: z.array(AlertRecord) }),
  ),
  'alerts.channels': method(
    'The alert channels (targets masked) and the rules with their defaults',
    z.object({}).strict(),
    z.object({ channels: z.array(ChannelInfo), rules: z.array(RuleInfo) }),
  ),
  'alerts.channels.secret': method(
    'Store a channel’s URL (webhook, Slack) or SMTP password (email) in the OS keychain as alert-channel:<name>',
    z.object({ name: z.string().min(1).max(40), secret: z.string().min(1).max(4096) }).strict(),
    ChannelInfo,
  ),
  'alerts.test': method(
    'Sends a test alert to one channel, or to every enabled channel',
    z.object({ channel: z.string().max(40).optional() }).strict(),
    z.object({
      results: z.array(z.object({ channel: z.string(), ok: z.boolean(), detail: z.string().nullable() })),
    }),
  ),
  'alerts.mutes': method(
    'Maintenance windows from the config and mutes from the console, and whether each is on now',
    z.object({}).strict(),
    z.object({ mutes: z.array(MuteInfo) }),
  ),
  'alerts.mute': method(
    'Mutes alerts for some minutes (all chains, or the ones given): they are recorded, not sent',
    z
      .object({
        minutes: z.number().int().min(1).max(10_080),
        serviceIds: z.array(z.number().int().positive()).max(12).optional(),
        reason: z.string().max(200).optional(),
      })
      .strict(),
    MuteInfo,
  ),
  'alerts.unmute': method(
    'Ends a mute set from the console',
    z.object({ id: z.string().max(40) }).strict(),
    z.object({ removed: z.boolean() }),
  ),
  'alerts.shown': method(
    'A console page displayed these desktop alerts (alert log ids): the log records them as shown',
    z.object({ ids: z.array(z.number().int()).min(1).max(1000) }).strict(),
    z.object({ marked: z.number().int() }),
  ),
  'alerts.missed': method(
    'Desktop alerts of the last 24 hours that no console page displayed (serve mode), oldest first',
    z.object({}).strict(),
    z.object({ records: z.array(AlertRecord) }),
  ),
  'alerts.uptime': method(
    'Uptime of one chain over 24 h, 7 days and 30 days, and the last 24 hours hour by hour',
    z.object({ serviceId: z.number().int().positive() }).strict(),
    Uptime,
  ),
}

export const alertsPushes = {
  /** Every alert for the `desktop` channel: the desktop shell shows it as a notification; in serve
   * mode the page shows it with the browser's Notification API and confirms it (`alerts.shown`
   * with its `logId`); what no page showed, the next page that opens asks for (`alerts.missed`). */
  'alerts.alert': Alert,
  /** Something changed in incidents or the alert log: views reload their lists. */
  'alerts.changed': z.object({ openIncidents: z.number().int() }),
}

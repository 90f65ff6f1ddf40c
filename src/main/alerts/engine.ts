import type { Alert, AlertKind, AlertSeverity, Incident, IncidentCause } from '../../shared/contract/alerts'
import { formatDuration } from './duration'
import { severityOf } from './rules'
import type { Condition } from './rules'

/** One rule's state about one subject: pending until confirmed, then a cause of its subject's incident. */
interface Cause {
  rule: string
  subject: string
  serviceId: number | null
  name: string
  title: string
  body: string
  severity: AlertSeverity
  confirmed: boolean
  pendingCount: number
  pendingSince: number
  /** When what led to it began: the first failed or late poll. */
  since: number
  /** Its order of confirmation, so that of equally severe causes the first keeps the headline. */
  confirmedSeq: number
}

/** The one incident of a subject (a chain, the listener, a relay source), open while any cause is. */
interface SubjectIncident {
  subject: string
  serviceId: number | null
  name: string
  incidentId: number | null
  openedAt: number
  /** The cause that names it: the most severe one. */
  headline: Pick<Cause, 'rule' | 'title' | 'body' | 'severity'>
  /** The most severe cause it has had: an update is sent only when a cause goes above it. */
  peak: AlertSeverity
  lastAlertAt: number
  timeline: IncidentCause[]
  /** Its confirmed causes at the last reconcile, by rule. */
  rules: Map<string, Pick<Cause, 'rule' | 'severity' | 'title'>>
}

export interface IncidentUpdate {
  rule: string
  severity: AlertSeverity
  title: string
  detail: string
  causes: IncidentCause[]
}

export interface EngineDeps {
  now(): number
  /** Returns the incident id, or null when it could not be stored (the alert still goes out). */
  open(c: Condition & { severity: AlertSeverity; causes: IncidentCause[] }, at: number): number | null
  update(incidentId: number, i: IncidentUpdate): void
  close(incidentId: number, at: number, reason: string, causes: IncidentCause[]): void
  emit(alert: Alert): void
  repeatMs(): number
  disabled(rule: string): boolean
}

const rank: Record<AlertSeverity, number> = { info: 0, warning: 1, critical: 2 }

/** Incidents from conditions, one per subject: rules about one subject (a chain's down, error
 * rate, lag, stall …) feed one incident. It opens once, named by its most severe confirmed cause,
 * and starts when the earliest cause began (the first failed or late poll, not the confirmation).
 * A more severe cause escalates it (an update, sent); another cause taking over at the same or a
 * lower severity is recorded on its timeline, not sent. It closes once, when its last cause ends,
 * at the time of the observation that ended it, with one recovery alert; one reminder every
 * `repeatMs` while it lasts. */
export class IncidentEngine {
  private readonly causes = new Map<string, Cause>()
  private readonly incidents = new Map<string, SubjectIncident>()
  private seq = 0

  constructor(private readonly deps: EngineDeps) {}

  /** Incidents still open from before a restart: their recovery is still owed. Each keeps its
   * headline rule as a confirmed cause until that rule is observed inactive. */
  restore(open: Incident[]): void {
    const now = this.deps.now()
    for (const i of open) {
      this.causes.set(key(i.rule, i.subject), {
        rule: i.rule,
        subject: i.subject,
        serviceId: i.serviceId,
        name: i.title,
        title: i.title,
        body: i.detail,
        severity: i.severity,
        confirmed: true,
        pendingCount: 0,
        pendingSince: i.openedAt,
        since: i.openedAt,
        confirmedSeq: this.seq++,
      })
      this.incidents.set(i.subject, {
        subject: i.subject,
        serviceId: i.serviceId,
        name: i.title,
        incidentId: i.id,
        openedAt: i.openedAt,
        headline: { rule: i.rule, title: i.title, body: i.detail, severity: i.severity },
        peak: i.severity,
        lastAlertAt: now,
        timeline: i.causes,
        rules: new Map([[i.rule, { rule: i.rule, severity: i.severity, title: i.title }]]),
      })
    }
  }

  openCount(): number {
    return this.incidents.size
  }

  /** One round of conditions (a poll round's, a status check's): every cause is updated first,
   * then each subject's incident, so a cause handing over to another in the same round (down →
   * stalled) stays one incident. */
  observe(conditions: Condition[]): void {
    const now = this.deps.now()
    const touched = new Map<string, { at: number; gone?: string; name: string }>()
    for (const c of conditions) {
      const at = c.at ?? now
      this.observeCause(c, at)
      const seen = touched.get(c.subject)
      touched.set(c.subject, {
        at: Math.max(seen?.at ?? at, at),
        gone: c.gone ?? seen?.gone,
        name: c.name,
      })
    }
    for (const [subject, t] of touched) this.reconcile(subject, now, t.at, t.gone, t.name)
  }

  private observeCause(c: Condition, at: number): void {
    const k = key(c.rule, c.subject)
    if (!c.active || this.deps.disabled(c.rule)) {
      this.causes.delete(k)
      return
    }
    let cause = this.causes.get(k)
    if (!cause) {
      cause = {
        rule: c.rule,
        subject: c.subject,
        serviceId: c.serviceId,
        name: c.name,
        title: c.title,
        body: c.body,
        severity: severityOf(c.rule),
        confirmed: false,
        pendingCount: 0,
        pendingSince: at,
        since: at,
        confirmedSeq: 0,
      }
      this.causes.set(k, cause)
    }
    Object.assign(cause, { name: c.name, title: c.title, body: c.body, serviceId: c.serviceId })
    if (c.since != null) cause.since = Math.min(cause.since, c.since)
    if (cause.confirmed) return
    cause.pendingCount += 1
    const confirm = c.confirm ?? { count: 1, ms: 0 }
    if (cause.pendingCount < confirm.count || at - cause.pendingSince < confirm.ms) return
    cause.confirmed = true
    cause.confirmedSeq = this.seq++
  }

  /** The subject's confirmed causes, most severe first (of equals, the first confirmed). */
  private confirmedOf(subject: string): Cause[] {
    const out: Cause[] = []
    for (const c of this.causes.values()) if (c.subject === subject && c.confirmed) out.push(c)
    return out.sort((a, b) => rank[b.severity] - rank[a.severity] || a.confirmedSeq - b.confirmedSeq)
  }

  private reconcile(subject: string, now: number, at: number, gone: string | undefined, name: string): void {
    const causes = this.confirmedOf(subject)
    const incident = this.incidents.get(subject)
    if (causes.length === 0) {
      if (incident) this.recover(incident, now, at, gone, name)
      return
    }
    if (!incident) return this.open(subject, causes, now)
    this.followCauses(incident, causes, now)
  }

  private open(subject: string, causes: Cause[], now: number): void {
    const head = causes[0]!
    const openedAt = Math.min(...causes.map((c) => c.since))
    const timeline: IncidentCause[] = [
      entry(openedAt, 'opened', head),
      ...causes.slice(1).map((c) => entry(openedAt, 'joined', c)),
    ]
    const incident: SubjectIncident = {
      subject,
      serviceId: head.serviceId,
      name: head.name,
      incidentId: null,
      openedAt,
      headline: { rule: head.rule, title: head.title, body: head.body, severity: head.severity },
      peak: head.severity,
      lastAlertAt: now,
      timeline,
      rules: byRule(causes),
    }
    this.incidents.set(subject, incident)
    incident.incidentId = this.deps.open(
      { ...head, active: true, severity: head.severity, causes: timeline },
      openedAt,
    )
    this.emit(incident, 'fired', head.title, head.body, null, now)
  }

  /** Causes joined, cleared or took over: the timeline records each; only a rise in severity is sent. */
  private followCauses(incident: SubjectIncident, causes: Cause[], now: number): void {
    const head = causes[0]!
    const rules = byRule(causes)
    let changed = false
    for (const c of causes.slice(1))
      if (!incident.rules.has(c.rule) && c.rule !== incident.headline.rule) {
        incident.timeline.push(entry(now, 'joined', c))
        changed = true
      }
    for (const [r, c] of incident.rules)
      if (!rules.has(r)) {
        incident.timeline.push(entry(now, 'cleared', c))
        changed = true
      }
    incident.rules = rules
    const before = incident.headline
    incident.headline = { rule: head.rule, title: head.title, body: head.body, severity: head.severity }
    incident.name = head.name
    if (before.rule !== head.rule) {
      const rising = rank[head.severity] > rank[incident.peak]
      incident.timeline.push(entry(now, rising ? 'escalated' : 'changed', head))
      changed = true
      if (rising) {
        incident.peak = head.severity
        incident.lastAlertAt = now
        this.emit(incident, 'escalated', head.title, `${head.body} (Was: ${before.title}.)`, null, now)
      }
    }
    if (changed && incident.incidentId !== null)
      this.deps.update(incident.incidentId, {
        rule: head.rule,
        severity: incident.peak,
        title: head.title,
        detail: head.body,
        causes: incident.timeline,
      })
  }

  /** Reminders for incidents that last past `repeatMs` since their last alert. */
  remind(): void {
    const every = this.deps.repeatMs()
    if (every <= 0) return
    const now = this.deps.now()
    for (const s of this.incidents.values()) {
      if (now - s.lastAlertAt < every) continue
      s.lastAlertAt = now
      const { title, body } = s.headline
      this.emit(s, 'reminder', `${title} for ${formatDuration(now - s.openedAt)}`, body, null, now)
    }
  }

  /** Closes an open incident at `at` (the observation that ended its last cause): recovered, or
   * (`gone`) ended because its subject was removed. Its duration is closed − opened. */
  private recover(s: SubjectIncident, now: number, at: number, gone: string | undefined, name: string): void {
    this.incidents.delete(s.subject)
    const closedAt = Math.max(s.openedAt, at)
    const lasted = closedAt - s.openedAt
    s.name = name
    s.timeline.push({
      ...entry(closedAt, gone ? 'closed' : 'resolved', s.headline),
      title: gone ?? 'recovered',
    })
    if (s.incidentId !== null) this.deps.close(s.incidentId, closedAt, gone ?? 'recovered', s.timeline)
    const was = s.headline
    if (gone)
      return this.emit(
        s,
        'closed',
        `${s.name}: incident closed after ${formatDuration(lasted)} (${gone})`,
        `Closed without recovering: ${gone}. Was: ${was.title}. ${was.body}`,
        lasted,
        now,
      )
    this.emit(
      s,
      'recovered',
      `${s.name} recovered after ${formatDuration(lasted)}`,
      `Was: ${was.title}. ${was.body}`,
      lasted,
      now,
    )
  }

  private emit(
    s: SubjectIncident,
    kind: AlertKind,
    title: string,
    body: string,
    durationMs: number | null,
    t: number,
  ) {
    this.deps.emit({
      t,
      rule: s.headline.rule,
      subject: s.subject,
      serviceId: s.serviceId,
      kind,
      severity: kind === 'recovered' || kind === 'closed' ? 'info' : s.headline.severity,
      title,
      body,
      incidentId: s.incidentId,
      durationMs,
      causes: [...new Set(s.timeline.map((c) => c.rule))],
    })
  }
}

const key = (rule: string, subject: string) => `${rule}\u0000${subject}`

const byRule = (causes: Cause[]) =>
  new Map(causes.map((c) => [c.rule, { rule: c.rule, severity: c.severity, title: c.title }]))

const entry = (
  t: number,
  kind: IncidentCause['kind'],
  c: Pick<Cause, 'rule' | 'severity' | 'title'>,
): IncidentCause => ({ t, kind, rule: c.rule, severity: c.severity, title: c.title })

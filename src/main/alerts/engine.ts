import type { Alert, AlertKind, Incident } from '../../shared/contract/alerts'
import { formatDuration } from './duration'
import { severityOf } from './rules'
import type { Condition } from './rules'

interface State {
  rule: string
  subject: string
  serviceId: number | null
  name: string
  title: string
  body: string
  open: boolean
  incidentId: number | null
  openedAt: number
  lastAlertAt: number
  pendingCount: number
  pendingSince: number | null
}

export interface EngineDeps {
  now(): number
  /** Returns the incident id, or null when it could not be stored (the alert still goes out). */
  open(c: Condition, at: number): number | null
  close(incidentId: number, at: number, reason: string): void
  emit(alert: Alert): void
  repeatMs(): number
  disabled(rule: string): boolean
}

/** Incidents from conditions: open when a condition turns active (after its confirmation), one
 * reminder every `repeatMs` while it lasts, closed with a recovery alert and its duration when it
 * turns inactive. One state per (rule, subject). */
export class IncidentEngine {
  private readonly states = new Map<string, State>()

  constructor(private readonly deps: EngineDeps) {}

  /** Incidents still open from before a restart: their recovery is still owed. */
  restore(open: Incident[]): void {
    for (const i of open)
      this.states.set(key(i.rule, i.subject), {
        rule: i.rule,
        subject: i.subject,
        serviceId: i.serviceId,
        name: i.title,
        title: i.title,
        body: i.detail,
        open: true,
        incidentId: i.id,
        openedAt: i.openedAt,
        lastAlertAt: this.deps.now(),
        pendingCount: 0,
        pendingSince: null,
      })
  }

  openCount(): number {
    let n = 0
    for (const s of this.states.values()) if (s.open) n++
    return n
  }

  observe(c: Condition): void {
    const k = key(c.rule, c.subject)
    const now = this.deps.now()
    let state = this.states.get(k)
    if (!c.active || this.deps.disabled(c.rule)) {
      if (!state) return
      state.name = c.name
      if (state.open) this.recover(state, now, c.gone)
      this.states.delete(k)
      return
    }
    if (!state) {
      state = {
        rule: c.rule,
        subject: c.subject,
        serviceId: c.serviceId,
        name: c.name,
        title: c.title,
        body: c.body,
        open: false,
        incidentId: null,
        openedAt: now,
        lastAlertAt: now,
        pendingCount: 0,
        pendingSince: null,
      }
      this.states.set(k, state)
    }
    state.title = c.title
    state.body = c.body
    state.name = c.name
    if (state.open) return
    state.pendingCount += 1
    state.pendingSince ??= now
    const confirm = c.confirm ?? { count: 1, ms: 0 }
    if (state.pendingCount < confirm.count || now - state.pendingSince < confirm.ms) return
    state.open = true
    state.openedAt = Math.min(state.pendingSince, c.since ?? state.pendingSince)
    state.lastAlertAt = now
    state.incidentId = this.deps.open({ ...c }, state.openedAt)
    this.emit(state, 'fired', state.title, state.body, null, now)
  }

  /** Reminders for incidents that last past `repeatMs` since their last alert. */
  remind(): void {
    const every = this.deps.repeatMs()
    if (every <= 0) return
    const now = this.deps.now()
    for (const s of this.states.values()) {
      if (!s.open || now - s.lastAlertAt < every) continue
      s.lastAlertAt = now
      this.emit(s, 'reminder', `${s.title} for ${formatDuration(now - s.openedAt)}`, s.body, null, now)
    }
  }

  /** Closes an open incident: recovered, or (`gone`) ended because its subject was removed. */
  private recover(s: State, now: number, gone?: string): void {
    const lasted = now - s.openedAt
    if (s.incidentId !== null) this.deps.close(s.incidentId, now, gone ?? 'recovered')
    if (gone)
      return this.emit(
        s,
        'closed',
        `${s.name}: incident closed after ${formatDuration(lasted)} (${gone})`,
        `Closed without recovering: ${gone}. Was: ${s.title}. ${s.body}`,
        lasted,
        now,
      )
    this.emit(
      s,
      'recovered',
      `${s.name} recovered after ${formatDuration(lasted)}`,
      `Was: ${s.title}. ${s.body}`,
      lasted,
      now,
    )
  }

  private emit(s: State, kind: AlertKind, title: string, body: string, durationMs: number | null, t: number) {
    this.deps.emit({
      t,
      rule: s.rule,
      subject: s.subject,
      serviceId: s.serviceId,
      kind,
      severity: kind === 'recovered' || kind === 'closed' ? 'info' : severityOf(s.rule),
      title,
      body,
      incidentId: s.incidentId,
      durationMs,
    })
  }
}

const key = (rule: string, subject: string) => `${rule}\u0000${subject}`

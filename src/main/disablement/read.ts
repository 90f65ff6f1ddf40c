import type { Database } from 'better-sqlite3'
import { forecast } from './forecast'
import type { DownSpan } from './forecast'
import { createOutageStore, keepOutagesMs } from './store'

/** The read port for a second process (`watchdesk mcp`, read-only): the recorded outages, the
 * listener's gaps between runs, and the forecast from them. Endpoint ids live in the keychain, so
 * per-endpoint answers come from the rules' incidents; this says the deadline they share. */
export function readDisablement(db: Database, now: number, leadMs: number) {
  const gaps = db
    .prepare('SELECT started_at, alive_at, stopped_at FROM listener_runs ORDER BY id DESC LIMIT 11')
    .all() as { started_at: number; alive_at: number; stopped_at: number | null }[]
  const runs: DownSpan[] = []
  for (let i = 0; i + 1 < gaps.length; i++) {
    const from = gaps[i + 1]!.stopped_at ?? gaps[i + 1]!.alive_at
    if (gaps[i]!.started_at - from >= 2_000)
      runs.push({
        from,
        to: gaps[i]!.started_at,
        cause: 'listener_runs',
        detail: 'watchdesk was not running',
      })
  }
  const spans = [...createOutageStore(db).spans(now - keepOutagesMs), ...runs]
  const f = forecast(spans, now, leadMs)
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString())
  return {
    state: f.state,
    downSince: iso(f.downSince),
    evidence: f.evidence,
    deadline: iso(f.deadline),
    failedFrom: iso(f.failedFrom),
    failedBefore: iso(f.failedBefore),
    outages: spans.map((s) => ({ cause: s.cause, from: iso(s.from), to: iso(s.to), detail: s.detail })),
  }
}

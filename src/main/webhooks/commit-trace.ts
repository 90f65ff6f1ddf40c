/** A trace of what the commit worker did and when (bench/retention.ts only: it names the file in
 * WATCHDESK_COMMIT_TRACE and reads it after the worker closed, to say what each slow delivery
 * waited behind). Absent, nothing is recorded. Times are ms on the shared clock
 * (performance.timeOrigin + performance.now(), comparable across threads). */
import { writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import type { CommitRequest } from './commit-protocol.ts'
import type { PruneStepCounts, PruneStepsOptions } from './prune-steps.ts'

export type TraceSpan =
  | { kind: 'commit'; start: number; end: number; ids: string[] }
  | { kind: 'step'; start: number; end: number; rows: number }
  | { kind: 'step-commit'; start: number; end: number }
  | { kind: 'checkpoint'; start: number; end: number }

export interface CommitTraceFile {
  spans: TraceSpan[]
  counts: PruneStepCounts
}

export interface CommitTrace {
  commit(started: number, requests: Omit<CommitRequest, 'id'>[]): void
  pruneHooks: Pick<PruneStepsOptions, 'onStep' | 'onCheckpoint'>
  save(counts: PruneStepCounts): void
}

const maxSpans = 2_000_000

export function commitTraceFromEnv(): CommitTrace | undefined {
  const file = process.env.WATCHDESK_COMMIT_TRACE
  if (!file) return undefined
  const spans: TraceSpan[] = []
  const at = (t: number) => performance.timeOrigin + t
  /** A bench's worth (a few minutes at 500/s); a variable left set by mistake stops here. */
  const push = (span: TraceSpan) => void (spans.length < maxSpans && spans.push(span))
  return {
    commit: (started, requests) =>
      push({
        kind: 'commit',
        start: at(started),
        end: at(performance.now()),
        ids: requests.flatMap((r) => r.events.map((e) => e.id)),
      }),
    pruneHooks: {
      onStep: (started, lastChunk, ended, rows) => {
        push({ kind: 'step', start: at(started), end: at(lastChunk), rows })
        push({ kind: 'step-commit', start: at(lastChunk), end: at(ended) })
      },
      onCheckpoint: (started, ended) => push({ kind: 'checkpoint', start: at(started), end: at(ended) }),
    },
    save: (counts) => writeFileSync(file, JSON.stringify({ spans, counts } satisfies CommitTraceFile)),
  }
}

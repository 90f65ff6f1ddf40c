import type { Database } from 'better-sqlite3'

/** One recorded health sample of a chain, as the history store wrote it (columns by name). */
export type ChainSampleRow = Record<string, number | string | null> & { service_id: number; t: number }

/** Read port (CLI, MCP): each chain's newest recorded sample, by service id. */
export function latestChainSamples(db: Database): Map<number, ChainSampleRow> {
  const rows = db
    .prepare(
      `SELECT s.* FROM chain_samples s
       JOIN (SELECT service_id, max(t) AS t FROM chain_samples GROUP BY service_id) last
         ON last.service_id = s.service_id AND last.t = s.t`,
    )
    .all() as ChainSampleRow[]
  return new Map(rows.map((r) => [r.service_id, r]))
}

import type { WorkerFailure } from './protocol.ts'

/** An error as a failure value: SQLite's extended code (`SQLITE_BUSY`) when it has one. */
export function failureOf(error: unknown): WorkerFailure {
  const code = (error as { code?: unknown } | null)?.code
  return {
    code: typeof code === 'string' ? code : null,
    message: error instanceof Error ? error.message : String(error),
  }
}

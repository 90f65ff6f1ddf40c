/** The messages between a supervised worker and its host (host.ts posts `ToWorker` and reads
 * `FromWorker`; serve.ts the other way round). A worker's own API is a `Calls` map, method name →
 * `(params) => reply`: the one request union of the pair, checked on both sides by the compiler. */

/** Method name → its function type; what a worker answers and what its host may ask. */
export type Calls = { [method: string]: (params: any) => unknown }

export type ParamsOf<C extends Calls, M extends keyof C> = Parameters<C[M]>[0]
export type ReplyOf<C extends Calls, M extends keyof C> = Awaited<ReturnType<C[M]>>

/** Why a call got no answer: the worker is starting, missing, died, or took too long. */
export interface WorkerFailure {
  code: string | null
  message: string
}

export type CallReply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; failure: WorkerFailure }

export type LogLevel = 'info' | 'warn' | 'error'

export type ToWorker =
  /** `id` 0: a notification, answered by nothing. */
  { kind: 'call'; id: number; method: string; params: unknown } | { kind: 'close' }

export type FromWorker =
  /** Every answer of one drain of the port in one message (a commit batch answers together). */
  | { kind: 'replies'; replies: CallReply[] }
  /** Something the worker tells unasked (attempts, a status change). */
  | { kind: 'event'; event: unknown }
  | { kind: 'log'; level: LogLevel; msg: string; fields: Record<string, unknown> }

export type EchoCalls = {
  echo(text: string): string
  log(msg: string): void
  wait(ms: number): Promise<number>
  crash(): never
  fail(message: string): never
  tell(n: number): void
  /** Batched: every number gets 1000 × the size of its batch added. */
  add(n: number): number
  /** Queues `units` of background work, one unit per step; answered when all are done. */
  work(units: number): number
  /** As `work`, but the work is pending only once a timer released it (no call comes after). */
  later(units: number): number
  /** How often the worker gave its CPU away before a background step (after answers went out). */
  yields(): number
  /** Units of background work done so far. */
  done(): number
}

export type EchoEvent = { told: number }

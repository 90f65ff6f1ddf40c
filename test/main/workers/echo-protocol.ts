export type EchoCalls = {
  echo(text: string): string
  log(msg: string): void
  wait(ms: number): Promise<number>
  crash(): never
  fail(message: string): never
  tell(n: number): void
  /** Batched: every number gets 1000 × the size of its batch added. */
  add(n: number): number
}

export type EchoEvent = { told: number }

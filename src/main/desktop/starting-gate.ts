import { methodNames } from '../../shared/contract'
import type { MethodName } from '../../shared/contract'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import { systemPollClock } from '../../shared/clock'
import type { PollClock } from '../../shared/clock'
import type { ApiHandlers } from '../transport/dispatch'

/** The sentence a call gets while the back end is still starting. */
export const startingMessage =
  'watchdesk is still starting: it is opening the database and reading the OS keychain (unlock it ' +
  'if the system asks). This window fills in by itself when it is ready.'

/** Calls `fire` once, `ms` from now; disposing the result cancels it (tests fire it by hand). */
export type Timer = PollClock['after']
export const realTimer: Timer = (ms, fire) => systemPollClock.after(ms, fire)

/** Window first: the shell binds IPC to these handlers before the back end starts, so the window
 * opens at once. A call made meanwhile waits up to `holdMs` for the back end (a normal start takes
 * well under that) and then gets an `unavailable` answer saying it is starting; once the back end
 * is there every call goes straight to it. */
export function createStartingGate(options: { holdMs: number; timer?: Timer }) {
  const { holdMs, timer = realTimer } = options
  let real: ApiHandlers | null = null
  let failure: string | null = null
  let answeredStarting = 0
  const waiting = new Set<() => void>()

  const settle = () => {
    for (const wake of [...waiting]) wake()
  }
  const call = async (name: MethodName, request: unknown): Promise<Result<unknown>> => {
    if (!real && !failure) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiting.delete(wake)
          cancel.dispose()
          resolve()
        }
        const cancel = timer(holdMs, wake)
        waiting.add(wake)
      })
    }
    if (real) return (real[name] as (r: unknown) => Promise<Result<unknown>>)(request)
    answeredStarting++
    return err('unavailable', failure ?? startingMessage)
  }
  const handlers = Object.fromEntries(
    methodNames.map((name) => [name, (request: unknown) => call(name, request)]),
  ) as unknown as ApiHandlers

  return {
    handlers,
    /** The back end is up: waiting calls and every later one go to it. */
    open(backend: ApiHandlers): void {
      real = backend
      settle()
    },
    /** The back end could not start: waiting calls get this sentence. */
    fail(message: string): void {
      failure = message
      settle()
    },
    /** How many calls were answered "starting" (the shell reloads the page once it is ready). */
    answeredStarting: () => answeredStarting,
    waiting: () => waiting.size,
  }
}

import type { PushMessage } from '../../shared/contract'
import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { heartbeatEveryMs } from '../../shared/liveness'

/** Sends an `app.heartbeat` at once and then every `everyMs`, until disposed. The timer does not
 * keep the process alive, and a send that throws (a closed socket, a destroyed window) does not stop
 * it: the owner disposes it when its stream ends. */
export function startHeartbeat(send: (message: PushMessage) => void, everyMs = heartbeatEveryMs): Disposable {
  const beat = () => {
    try {
      send({ topic: 'app.heartbeat', payload: { at: Date.now() } })
    } catch {
      // the stream is going away; its close handler disposes this timer
    }
  }
  beat()
  const timer = setInterval(beat, everyMs)
  timer.unref()
  return toDisposable(() => clearInterval(timer))
}

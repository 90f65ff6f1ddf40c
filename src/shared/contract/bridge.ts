import type { MethodName, PushMessage, RequestOf, ResponseOf } from './index'
import type { Disposable } from '../disposable'
import type { Result } from '../result'

/** What the preload exposes as `window.watchdesk` (Electron) — one function per contract method. */
export interface WatchdeskBridge {
  methods: { [K in MethodName]: (request: RequestOf<K>) => Promise<Result<ResponseOf<K>>> }
  onPush(listener: (message: PushMessage) => void): Disposable
}

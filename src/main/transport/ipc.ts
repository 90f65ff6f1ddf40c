import { ipcChannel, ipcPushChannel, methodNames } from '../../shared/contract'
import { DisposableStore, toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { err } from '../../shared/result'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import { dispatch } from './dispatch'
import type { ApiHandlers } from './dispatch'
import { startHeartbeat } from './heartbeat'

/** The slice of Electron's ipcMain and WebContents this binding uses, so it runs under Node with a
 * stand-in in tests and never imports 'electron' itself. */
export interface SenderFrame {
  url: string
  /** null for the top frame of a page; an iframe has a parent. */
  parent: unknown
}
export interface IpcEvent {
  senderFrame: SenderFrame | null
}
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEvent, ...args: unknown[]) => Promise<unknown>): void
  removeHandler(channel: string): void
}
export interface PushTarget {
  send(channel: string, message: unknown): void
  isDestroyed(): boolean
}

/** VS Code's validatedIpcMain idea: every call is checked against the sender frame before the
 * contract's own request validation. */
export function bindIpc(options: {
  ipcMain: IpcMainLike
  handlers: ApiHandlers
  isTrustedSender: (frame: SenderFrame) => boolean
  log: Logger
}): Disposable {
  const { ipcMain, handlers, isTrustedSender, log } = options
  for (const name of methodNames) {
    ipcMain.handle(ipcChannel(name), async (event, request) => {
      const frame = event.senderFrame
      if (!frame || frame.parent !== null || !isTrustedSender(frame)) {
        log.warn('refused IPC from an untrusted frame', { method: name, url: frame?.url ?? null })
        return err('forbidden', 'This frame may not call the watchdesk API.')
      }
      return dispatch(handlers, name, request, log)
    })
  }
  return toDisposable(() => methodNames.forEach((name) => ipcMain.removeHandler(ipcChannel(name))))
}

/** Every push to the window, and a heartbeat (src/shared/liveness.ts) so the renderer notices when
 * the back end stops answering. The owner disposes it when the window closes. */
export function forwardPushes(
  push: PushBus,
  target: PushTarget,
  options: { heartbeatMs?: number } = {},
): Disposable {
  const owned = new DisposableStore()
  const send = (message: unknown) => {
    if (!target.isDestroyed()) target.send(ipcPushChannel, message)
  }
  owned.add(push.subscribe(send))
  owned.add(startHeartbeat(send, options.heartbeatMs))
  return owned
}

/** The renderer is trusted only when it is the app's own index.html (or the dev server in
 * `npm run dev`); query and hash are ignored, anything else is refused. */
export function isOwnRenderer(indexUrl: string, devServerUrl?: string): (frame: SenderFrame) => boolean {
  const strip = (u: string) => u.replace(/[?#].*$/, '')
  const devOrigin = devServerUrl ? new URL(devServerUrl).origin : null
  return (frame) => {
    if (strip(frame.url) === strip(indexUrl)) return true
    try {
      return devOrigin !== null && new URL(frame.url).origin === devOrigin
    } catch {
      return false
    }
  }
}

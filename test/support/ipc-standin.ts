import type { IpcEvent, IpcMainLike, SenderFrame } from '../../src/main/transport/ipc'

/** Electron's ipcMain as far as bindIpc uses it: handlers by channel, invoked like ipcRenderer.invoke. */
export function createIpcStandIn() {
  const handlers = new Map<string, (event: IpcEvent, ...args: unknown[]) => Promise<unknown>>()
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
      handlers.set(channel, listener)
    },
    removeHandler: (channel) => void handlers.delete(channel),
  }
  return {
    ipcMain,
    channels: () => [...handlers.keys()],
    invoke(channel: string, frame: SenderFrame | null, ...args: unknown[]): Promise<unknown> {
      const handler = handlers.get(channel)
      if (!handler) return Promise.reject(new Error(`No handler registered for '${channel}'`))
      return handler({ senderFrame: frame }, ...args)
    },
  }
}

export const ownFrame = (url: string): SenderFrame => ({ url, parent: null })

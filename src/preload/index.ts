import { contextBridge, ipcRenderer } from 'electron'
import type { MethodName } from '../shared/contract'
import type { WatchdeskBridge } from '../shared/contract/bridge'

/** The contract's IPC channels as plain data, generated at build time from its method list
 * (electron.vite.config.ts): the sandboxed preload carries no schema library, only strings. */
declare const __WATCHDESK_IPC__: { calls: Record<MethodName, string>; push: string }

// Read once: a define is pasted wherever it is named.
const ipc = __WATCHDESK_IPC__

/** Exposes exactly the contract's methods and the push stream. Nothing else of Electron or Node
 * reaches the page. */
const methods = Object.fromEntries(
  Object.entries(ipc.calls).map(([name, channel]) => [
    name,
    (request: unknown) => ipcRenderer.invoke(channel, request),
  ]),
) as WatchdeskBridge['methods']

const bridge: WatchdeskBridge = {
  methods,
  onPush(listener) {
    const forward = (_event: unknown, message: unknown) => listener(message as Parameters<typeof listener>[0])
    ipcRenderer.on(ipc.push, forward)
    // A plain object: contextBridge copies it to the page with its function proxied.
    return { dispose: () => void ipcRenderer.off(ipc.push, forward) }
  },
}

contextBridge.exposeInMainWorld('watchdesk', bridge)

import { contextBridge, ipcRenderer } from 'electron'
import { ipcChannel, ipcPushChannel, methodNames } from '../shared/contract'
import type { WatchdeskBridge } from '../shared/contract/bridge'

/** Exposes exactly the contract's methods, derived from its method list, and the push stream.
 * Nothing else of Electron or Node reaches the page. */
const methods = Object.fromEntries(
  methodNames.map((name) => [name, (request: unknown) => ipcRenderer.invoke(ipcChannel(name), request)]),
) as WatchdeskBridge['methods']

const bridge: WatchdeskBridge = {
  methods,
  onPush(listener) {
    const forward = (_event: unknown, message: unknown) => listener(message as Parameters<typeof listener>[0])
    ipcRenderer.on(ipcPushChannel, forward)
    return () => ipcRenderer.off(ipcPushChannel, forward)
  },
}

contextBridge.exposeInMainWorld('watchdesk', bridge)

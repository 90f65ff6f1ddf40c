import type { SenderFrame } from '../transport/ipc'

/** What the IPC check reads of Electron's WebFrameMain. */
export interface FrameLike extends SenderFrame {
  processId?: number
  routingId?: number
}

/** Whether an IPC call comes from the top frame of the app's own window. The frame is compared
 * with the window's main frame (the same object, or the same process and routing id), never by
 * URL text: a `pathToFileURL()` string and the URL Chromium built for `loadFile` differ for an
 * install path with `%`, spaces or non-ASCII characters. The URL's origin is a second check: a
 * `file:` page when the app loads its files, the dev server's exact origin under `npm run dev`. */
export function isAppMainFrame(
  frame: FrameLike,
  mainFrame: FrameLike | null | undefined,
  devServerOrigin: string | null,
): boolean {
  if (!mainFrame || frame.parent !== null) return false
  const same =
    frame === mainFrame ||
    (typeof frame.processId === 'number' &&
      frame.processId === mainFrame.processId &&
      frame.routingId === mainFrame.routingId)
  if (!same) return false
  let url: URL
  try {
    url = new URL(frame.url)
  } catch {
    return false
  }
  return devServerOrigin ? url.origin === devServerOrigin : url.protocol === 'file:'
}

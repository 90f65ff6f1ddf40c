/** How the console knows its back end is alive: both transports (server-sent events in serve mode,
 * IPC in the desktop app) send an `app.heartbeat` push this often, and the renderer calls the back
 * end unreachable when nothing at all has arrived for `silentAfterMs` (two beats missed; with its
 * half-second check that is under 5 s after the last sign of life). */
export const heartbeatEveryMs = 2_000
export const silentAfterMs = 4_000

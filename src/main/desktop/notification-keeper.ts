/** What the keeper needs of Electron's Notification. */
export interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown
  on(event: 'failed', listener: (event: unknown, error: string) => void): unknown
  show(): void
}

/** Electron's Notification is garbage-collected once nothing references it: its click handler
 * goes with it, and on macOS it leaves Notification Center. Each one shown is kept here until it
 * is clicked, closed or has failed to show. */
export function createNotificationKeeper(onFailed: (error: string) => void) {
  const shown = new Set<NotificationLike>()
  return {
    show(notification: NotificationLike, onClick: () => void): void {
      shown.add(notification)
      notification.on('click', () => {
        shown.delete(notification)
        onClick()
      })
      notification.on('close', () => shown.delete(notification))
      notification.on('failed', (_event, error) => {
        shown.delete(notification)
        onFailed(String(error))
      })
      notification.show()
    },
    get size() {
      return shown.size
    },
    /** On quit: the notifications stay on screen, their handlers go. */
    clear(): void {
      shown.clear()
    },
  }
}

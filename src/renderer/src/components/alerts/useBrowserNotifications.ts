import { useEffect } from 'react'
import { backend } from '../../api'

/** serve mode: alerts of the `desktop` channel shown with the browser's Notification API while the
 * page is open (the desktop app shows them from its main process instead). */
export function useBrowserNotifications(): void {
  useEffect(() => {
    if (backend().transport === 'ipc' || typeof Notification === 'undefined') return
    if (Notification.permission === 'default') void Notification.requestPermission()
    const subscription = backend().onPush('alerts.alert', (alert) => {
      if (Notification.permission !== 'granted') return
      const n = new Notification(alert.title, { body: alert.body, tag: `${alert.rule}:${alert.subject}` })
      n.onclick = () => {
        window.focus()
        window.location.hash = '#/alerts'
      }
    })
    return () => subscription.dispose()
  }, [])
}

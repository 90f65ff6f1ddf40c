import { useEffect } from 'react'
import type { AlertRecord } from '../../../../shared/contract/alerts'
import { backend } from '../../api'

/** Missed alerts shown one by one up to this many; more become one summary notification. */
const missedOneByOne = 3

/** serve mode: alerts of the `desktop` channel shown with the browser's Notification API while the
 * page is open (the desktop app shows them from its main process instead). The back end logs such
 * an alert "not shown" until a page confirms it displayed it; on opening, the page shows the ones
 * no page displayed (while no console was open) and confirms them too. */
export function useBrowserNotifications(): void {
  useEffect(() => {
    if (backend().transport === 'ipc' || typeof Notification === 'undefined') return
    let live = true
    const show = (title: string, body: string, tag: string) => {
      const n = new Notification(title, { body, tag })
      n.onclick = () => {
        window.focus()
        window.location.hash = '#/alerts'
      }
    }
    const confirm = (ids: number[]) => {
      if (ids.length > 0) void backend().call('alerts.shown', { ids })
    }
    const showMissed = async () => {
      const missed = await backend().call('alerts.missed', {})
      if (!live || !missed.ok || missed.value.records.length === 0) return
      if (Notification.permission !== 'granted') return
      const records = missed.value.records
      if (records.length <= missedOneByOne)
        for (const r of records) show(r.title, missedBody(r), `${r.rule}:${r.subject}`)
      else
        show(
          `${records.length} alerts while no console was open`,
          records.map((r) => r.title).join(' · '),
          'watchdesk-missed',
        )
      confirm(records.map((r) => r.id))
    }
    const permitted =
      Notification.permission === 'default'
        ? Notification.requestPermission().then(() => undefined)
        : Promise.resolve()
    void permitted.then(showMissed)
    const subscription = backend().onPush('alerts.alert', (alert) => {
      if (Notification.permission !== 'granted') return
      show(alert.title, alert.body, `${alert.rule}:${alert.subject}`)
      if (alert.logId !== undefined) confirm([alert.logId])
    })
    return () => {
      live = false
      subscription.dispose()
    }
  }, [])
}

const missedBody = (r: AlertRecord) =>
  `Missed while no console was open (${new Date(r.t).toLocaleString('en-GB', {
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  })}).`

import type { AlertRecord } from '../../../../shared/contract/alerts'
import { StatusBadge } from '../Status'
import { fmtTime } from './format'

const tone = { sent: 'good', failed: 'bad', muted: 'muted', not_shown: 'warn' } as const
const label = { sent: 'sent', failed: 'failed', muted: 'muted', not_shown: 'not shown' } as const

/** Every alert on every channel: sent, failed (with why), muted (by which window) or, for a desktop
 * alert in serve mode, not shown (no console page displayed it yet). */
export function AlertLog({ records }: { records: AlertRecord[] }) {
  if (records.length === 0) return <p className="hint">No alerts yet.</p>
  return (
    <table className="grid" aria-label="Alert log">
      <thead>
        <tr>
          <th>Time</th>
          <th>Alert</th>
          <th>Channel</th>
          <th>Result</th>
        </tr>
      </thead>
      <tbody>
        {records.map((r) => (
          <tr key={r.id}>
            <td className="num-left">{fmtTime(r.t)}</td>
            <td>
              {r.title} <span className="dim">{r.kind}</span>
            </td>
            <td>{r.channel}</td>
            <td title={r.detail ?? undefined}>
              <StatusBadge tone={tone[r.result]} label={label[r.result]} />{' '}
              <span className="dim">{r.detail}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

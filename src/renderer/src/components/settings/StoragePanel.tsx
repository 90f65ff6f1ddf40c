import { useEffect, useState } from 'react'
import type { StorageUsage } from '../../../../shared/contract/storage'
import { formatBytes } from '../../../../shared/bytes'
import { backend } from '../../api'
import { ConfigForm } from './ConfigForm'

const kinds = ['events', 'attempts', 'alerts', 'rejections'] as const

function bytes(n: number | null): string {
  return n === null ? 'unknown' : formatBytes(n)
}

const readUsage = () => backend().call('storage.usage', {})

const when = (ms: number | null, none: string) => (ms === null ? none : new Date(ms).toLocaleString())

/** Settings → Storage: disk use and what retention did (as `watchdesk storage` prints them), and
 * the retention and warning keys. Read when the panel opens and on Refresh. */
export function StoragePanel() {
  const [usage, setUsage] = useState<StorageUsage | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const apply = (read: Awaited<ReturnType<typeof readUsage>>) => {
    if (read.ok) {
      setUsage(read.value)
      setProblem(null)
    } else setProblem(read.error.message)
  }
  const load = () => readUsage().then(apply)
  useEffect(() => {
    let live = true
    void readUsage().then((read) => live && apply(read))
    return () => {
      live = false
    }
  }, [])
  const r = usage?.retention
  return (
    <section className="panel" aria-label="Storage settings">
      <header className="panel-head">
        <h2>Storage</h2>
        <span className="spacer" />
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </header>
      {problem && <p className="banner banner-bad">{problem}</p>}
      {usage?.warning && (
        <p className="banner banner-warn" role="status">
          {usage.warning}
        </p>
      )}
      {usage && r && (
        <dl className="facts">
          <dt>Data dir</dt>
          <dd>{bytes(usage.dataDirBytes)}</dd>
          <dt>Database</dt>
          <dd>{bytes(usage.databaseBytes)}</dd>
          <dt>Events stored</dt>
          <dd>{usage.events.toLocaleString()}</dd>
          <dt>Oldest event</dt>
          <dd>{when(usage.oldestEventAt, '—')}</dd>
          <dt>Free space</dt>
          <dd>
            {bytes(usage.freeBytes)} (warning below {usage.warnFreeMb} MB)
          </dd>
          <dt>Retention last run</dt>
          <dd>{when(r.lastRunAt, 'not yet')}</dd>
          <dt>Removed (last run)</dt>
          <dd>{kinds.map((k) => `${k} ${r.removed[k].toLocaleString()}`).join(' · ')}</dd>
          <dt>Retention next run</dt>
          <dd>{when(r.nextRunAt, 'at the next start')}</dd>
          {r.error && (
            <>
              <dt>Retention error</dt>
              <dd className="status-bad">{r.error}</dd>
            </>
          )}
        </dl>
      )}
      <ConfigForm
        label="Storage settings"
        fields={[
          ...kinds.map((k) => ({
            key: `retention.${k}.days`,
            kind: 'number' as const,
            hint: 'Days kept; 0 keeps them for ever.',
          })),
          { key: 'retention.intervalMinutes', kind: 'number' as const, placeholder: '60' },
          {
            key: 'storage.warnFreeMb',
            kind: 'number' as const,
            placeholder: '500',
            hint: 'Warn below this much free space.',
          },
        ]}
      />
    </section>
  )
}

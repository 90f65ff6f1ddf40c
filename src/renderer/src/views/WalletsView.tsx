import { useShallow } from 'zustand/react/shallow'
import { useEffect, useState } from 'react'
import { EmptyState } from '../components/EmptyState'
import { StatusBadge } from '../components/Status'
import { usePaymentsStore } from '../stores/payments'
import { useViewReady } from '../hooks/useViewReady'
import { formatClock } from '../../../shared/time'

const clock = (ms: number) => formatClock(ms)

/** GET /v1/wallets for the selected business: on demand and on an interval. The spec shows no
 * shape, so the columns are the fields present and the raw answer is one click away. */
export function WalletsView() {
  const { status, wallets, walletsError, walletsLoading, loadStatus, loadWallets, setBusinesses } =
    usePaymentsStore(
      useShallow((s) => ({
        status: s.status,
        wallets: s.wallets,
        walletsError: s.walletsError,
        walletsLoading: s.walletsLoading,
        loadStatus: s.loadStatus,
        loadWallets: s.loadWallets,
        setBusinesses: s.setBusinesses,
      })),
    )
  const [showRaw, setShowRaw] = useState(false)
  const ready = Boolean(status?.activeKey && status.apiBaseUrl)
  const business = status?.selectedBusinessId ?? null
  const refreshMs = status?.walletsRefreshMs ?? 30_000
  useEffect(() => {
    if (!status) void loadStatus()
  }, [status, loadStatus])
  useEffect(() => {
    if (!ready) return
    void loadWallets()
    const timer = setInterval(() => void loadWallets(), refreshMs)
    return () => clearInterval(timer)
  }, [ready, business, refreshMs, loadWallets])

  // Ready once the status is in and, with a key and an address, the first wallets answer too.
  useViewReady('wallets', status !== null && (!ready || wallets !== null || walletsError !== null))

  if (status && !ready) {
    return (
      <div className="view">
        <header className="view-head">
          <h1>Wallets</h1>
        </header>
        <EmptyState title={status.activeKey ? 'No apiBaseUrl yet' : 'No API key yet'}>
          <p>
            {status.activeKey ? (
              <>
                Set <code>apiBaseUrl</code> (the payments API address, without <code>/v1</code>) in{' '}
                <code>config.json</code>.
              </>
            ) : (
              <>
                Add an API key (<code>sk_sandbox_…</code> or <code>sk_live_…</code>) in{' '}
                <a href="#/settings">Settings</a>, or with <code>watchdesk keys set NAME</code>, to see the
                wallets of your business.
              </>
            )}
          </p>
        </EmptyState>
      </div>
    )
  }
  return (
    <div className="view">
      <header className="view-head">
        <h1>Wallets</h1>
        {status && status.businesses.length > 0 ? (
          <select
            aria-label="Business"
            value={business ?? ''}
            disabled={status.businessFromEnvironment}
            onChange={(e) => void setBusinesses(status.businesses, e.target.value || null)}
          >
            {!business && <option value="">no business (no X-Business-Id)</option>}
            {status.businesses.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name ? `${b.name} · ${b.id}` : b.id}
              </option>
            ))}
            {business && !status.businesses.some((b) => b.id === business) && (
              <option value={business}>{business}</option>
            )}
          </select>
        ) : (
          <span className="mono hint">{business ?? 'no business selected'}</span>
        )}
        <span className="spacer" />
        {walletsError ? (
          <StatusBadge tone="bad" label="failed" title={walletsError.message} />
        ) : wallets ? (
          <span className="hint">
            updated <span className="num">{clock(wallets.fetchedAt)}</span> · every{' '}
            {Math.round(refreshMs / 1000)} s
          </span>
        ) : null}
        <button type="button" onClick={() => setShowRaw(!showRaw)} aria-pressed={showRaw} disabled={!wallets}>
          Raw JSON
        </button>
        <button type="button" onClick={() => void loadWallets()} disabled={walletsLoading}>
          {walletsLoading ? 'Refreshing…' : 'Refresh'}
        </button>
      </header>
      {walletsError && (
        <p className="banner banner-bad" role="alert">
          {walletsError.message}
        </p>
      )}
      {wallets?.shapeProblem && <p className="banner banner-warn">{wallets.shapeProblem}</p>}
      {wallets && !wallets.shapeProblem && wallets.rows.length === 0 && (
        <p className="hint">The service answered an empty list of wallets for this business.</p>
      )}
      {wallets && wallets.rows.length > 0 && (
        <div className="panel table-panel">
          <table className="grid wallets-table">
            <thead>
              <tr>
                {wallets.columns.map((c, j) => (
                  <th key={c.key} className={columnClass(c.kind, j, c.kind === 'amount' ? 'num' : undefined)}>
                    {c.key}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {wallets.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((cell, j) => (
                    <td
                      key={j}
                      className={columnClass(
                        wallets.columns[j]!.kind,
                        j,
                        cellClass(cell.kind, wallets.columns[j]!.kind),
                      )}
                      title={cell.text}
                    >
                      {cell.kind === 'status' ? (
                        <StatusBadge tone={statusTone(cell.text)} label={cell.text} />
                      ) : (
                        cell.text
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">
            <span className="num">{wallets.rows.length}</span> wallet{wallets.rows.length === 1 ? '' : 's'} ·
            list found in <span className="mono">{wallets.source}</span> · amounts as the service sent them
            {extraColumns(wallets.columns).length > 0 && (
              <span className="narrow-only">
                {' '}
                · at this width {extraColumns(wallets.columns).join(', ')} are in Raw JSON
              </span>
            )}
          </p>
        </div>
      )}
      {wallets && (showRaw || wallets.shapeProblem) && (
        <section className="panel" aria-label="Raw answer">
          <h2>GET /v1/wallets, as received</h2>
          <pre className="json" tabIndex={0} aria-label="Raw answer JSON">
            {JSON.stringify(wallets.raw, null, 2)}
          </pre>
        </section>
      )}
    </div>
  )
}

/** The columns a glance needs (the first, ids, currency, amounts, status) always show; the others
 * give way below 1200 px (named under the table, whole in Raw JSON) so no balance is ever cut. */
const priorityKinds = new Set(['id', 'currency', 'amount', 'status'])
const isExtra = (kind: string, index: number) => index > 0 && !priorityKinds.has(kind)
const extraColumns = (columns: { key: string; kind: string }[]) =>
  columns.filter((c, i) => isExtra(c.kind, i)).map((c) => c.key)

function columnClass(kind: string, index: number, base: string | undefined): string | undefined {
  return isExtra(kind, index) ? [base, 'col-extra'].filter(Boolean).join(' ') : base
}

function cellClass(kind: string, columnKind: string): string | undefined {
  if (kind === 'amount' || columnKind === 'amount') return 'num'
  if (kind === 'id' || kind === 'json' || kind === 'time') return 'mono'
  return undefined
}

function statusTone(text: string) {
  if (/^(active|enabled|open|ok)$/i.test(text)) return 'good' as const
  if (/^(frozen|pending|suspended)$/i.test(text)) return 'warn' as const
  if (/^(closed|disabled|failed|blocked)$/i.test(text)) return 'bad' as const
  return 'muted' as const
}

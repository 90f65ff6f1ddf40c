import { useShallow } from 'zustand/react/shallow'
import { useEffect, useState } from 'react'
import type { KeyInfo } from '../../../../shared/contract/payments'
import { businessIdPattern } from '../../../../shared/payments/keys'
import { planLimits } from '../../../../shared/payments/plans'
import type { PlanName } from '../../../../shared/payments/plans'
import { effects } from '../../effects'
import { usePaymentsStore } from '../../stores/payments'
import { InlineForm, TextField } from '../InlineForm'
import { ListTable } from '../ListTable'
import { StatusBadge } from '../Status'

/** Settings → API keys and businesses. Keys go to the keychain; only masked forms come back. */
export function KeysPanel() {
  const { status, statusError, writeError, busy, loadStatus, setKey, removeKey, selectKey } =
    usePaymentsStore(
      useShallow((s) => ({
        status: s.status,
        statusError: s.statusError,
        writeError: s.writeError,
        busy: s.busy,
        loadStatus: s.loadStatus,
        setKey: s.setKey,
        removeKey: s.removeKey,
        selectKey: s.selectKey,
      })),
    )
  const [name, setName] = useState('')
  const [key, setKeyText] = useState('')
  const [activate, setActivate] = useState(true)
  const [keep, setKeep] = useState(false)
  useEffect(() => {
    if (!status) void loadStatus()
  }, [status, loadStatus])

  const save = async () => {
    if (await setKey(name.trim(), key, activate, keep)) {
      setName('')
      setKeyText('')
    }
  }
  return (
    <section className="panel payments-panel" aria-label="API keys and businesses">
      <h2>API keys</h2>
      {statusError && <p className="banner banner-bad">{statusError.message}</p>}
      {status && !status.keychain.reachable && <p className="banner banner-bad">{status.keychain.message}</p>}
      {status && status.keys.length > 0 ? (
        <table className="grid keys-table">
          <thead>
            <tr>
              <th>in use</th>
              <th>name</th>
              <th>key</th>
              <th>kind</th>
              <th>source</th>
              <th>plan</th>
              <th className="num">per min</th>
              <th className="num">per s</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {status.keys.map((k) => (
              <KeyRow
                key={k.name}
                info={k}
                onSelect={() => void selectKey(k.name)}
                onRemove={() => {
                  if (effects().confirm(`Remove the API key "${k.name}" from the OS keychain?`))
                    void removeKey(k.name)
                }}
              />
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">
          No API key yet. Keys are stored in the OS keychain only; this window never sees one again.
        </p>
      )}
      <InlineForm onSubmit={() => void save()}>
        <TextField label="Key name" placeholder="key name" value={name} onChange={setName} size={14} />
        <TextField
          label="API key"
          placeholder="sk_sandbox_… or sk_live_…"
          value={key}
          onChange={setKeyText}
          size={28}
          secret
        />
        <label>
          <input type="checkbox" checked={activate} onChange={(e) => setActivate(e.target.checked)} /> use it
        </label>
        <label title="Store it even when the service refuses it (remove it later here, or with watchdesk keys remove NAME)">
          <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> keep if refused
        </label>
        <button type="submit" className="primary" disabled={busy || !name.trim() || !key.trim()}>
          Store in keychain
        </button>
      </InlineForm>
      {writeError && (
        <p className="banner banner-bad" role="alert">
          {writeError.message}
        </p>
      )}
      <KeyTestResult />
      <BusinessesEditor />
    </section>
  )
}

function KeyTestResult() {
  const test = usePaymentsStore((s) => s.keyTest)
  if (!test) return null
  return (
    <div
      className={`banner ${test.works ? 'banner-good' : 'banner-bad'}`}
      role="status"
      data-testid="key-test"
    >
      <StatusBadge tone={test.works ? 'good' : 'bad'} label={test.works ? 'key works' : 'key refused'} />{' '}
      {test.message}
      {test.missingScopes.length > 0 && <p>Missing scopes: {test.missingScopes.join(', ')}</p>}
      {test.features.some((f) => f.state === 'missing') && (
        <ul className="key-features">
          {test.features
            .filter((f) => f.state === 'missing')
            .map((f) => (
              <li key={f.feature}>
                {f.label}: needs <span className="mono">{f.scope}</span>
              </li>
            ))}
        </ul>
      )}
      {test.works && test.businesses.length > 0 && <p>Reaches: {test.businesses.join(', ')}</p>}
    </div>
  )
}

function KeyRow({ info, onSelect, onRemove }: { info: KeyInfo; onSelect(): void; onRemove(): void }) {
  return (
    <tr className={info.kind === 'live' ? 'row-live' : undefined}>
      <td>
        <input
          type="radio"
          name="active-key"
          aria-label={`Use ${info.name}`}
          checked={info.active}
          onChange={onSelect}
          disabled={info.source === 'environment'}
        />
      </td>
      <td>{info.name}</td>
      <td className="mono">{info.masked}</td>
      <td>
        {info.kind === 'live' ? (
          <StatusBadge tone="bad" label="live" />
        ) : info.kind === 'sandbox' ? (
          <StatusBadge tone="info" label="sandbox" />
        ) : (
          <StatusBadge tone="warn" label="not a key" title={info.problem ?? undefined} />
        )}
      </td>
      <td>{info.source === 'environment' ? 'WATCHDESK_API_KEY' : info.source}</td>
      <td>
        <PlanEditor info={info} />
      </td>
      <td className="num">{info.perMinute?.toLocaleString('en-US') ?? '—'}</td>
      <td className="num">{info.perSecond?.toLocaleString('en-US') ?? '—'}</td>
      <td>
        {info.source !== 'environment' && (
          <button type="button" className="danger" onClick={onRemove}>
            Remove
          </button>
        )}
      </td>
    </tr>
  )
}

function PlanEditor({ info }: { info: KeyInfo }) {
  const setPlan = usePaymentsStore((s) => s.setPlan)
  const [custom, setCustom] = useState({
    perMinute: info.perMinute ?? 1000,
    perSecond: info.perSecond ?? 100,
  })
  const value = info.planInferred ? 'inferred' : (info.plan ?? 'inferred')
  const choose = (next: string) => {
    if (next === 'inferred') void setPlan(info.name, null)
    else if (next === 'enterprise') void setPlan(info.name, { plan: 'enterprise', ...custom })
    else void setPlan(info.name, { plan: next as Exclude<PlanName, 'enterprise'> })
  }
  return (
    <span className="plan-editor">
      <select
        aria-label={`Plan of ${info.name}`}
        value={value}
        onChange={(e) => choose(e.target.value)}
        disabled={!info.kind}
      >
        <option value="inferred">{info.kind === 'live' ? 'production' : 'sandbox'} (key kind)</option>
        <option value="sandbox">sandbox · {planLimits.sandbox.perMinute}/min</option>
        <option value="production">production · {planLimits.production.perMinute}/min</option>
        <option value="enterprise">enterprise · custom</option>
      </select>
      {info.plan === 'enterprise' && !info.planInferred && (
        <>
          <input
            aria-label="Requests per minute"
            type="number"
            min={1}
            value={custom.perMinute}
            onChange={(e) => setCustom({ ...custom, perMinute: Number(e.target.value) })}
            className="num"
            style={{ width: 80 }}
          />
          <input
            aria-label="Requests per second"
            type="number"
            min={1}
            value={custom.perSecond}
            onChange={(e) => setCustom({ ...custom, perSecond: Number(e.target.value) })}
            className="num"
            style={{ width: 64 }}
          />
          <button type="button" onClick={() => void setPlan(info.name, { plan: 'enterprise', ...custom })}>
            Apply
          </button>
        </>
      )}
    </span>
  )
}

function BusinessesEditor() {
  const { status, setBusinesses, busy } = usePaymentsStore(
    useShallow((s) => ({ status: s.status, setBusinesses: s.setBusinesses, busy: s.busy })),
  )
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  if (!status) return null
  const { businesses, selectedBusinessId, businessFromEnvironment } = status
  const add = async () => {
    const next = [...businesses, { id: id.trim(), name: name.trim() }]
    if (await setBusinesses(next, selectedBusinessId ?? id.trim())) {
      setId('')
      setName('')
    }
  }
  return (
    <>
      <h2>Businesses</h2>
      {businessFromEnvironment && (
        <p className="hint">
          WATCHDESK_BUSINESS_ID selects <span className="mono">{selectedBusinessId}</span> for this run.
        </p>
      )}
      <ListTable
        headers={[{ label: 'in use' }, { label: 'id' }, { label: 'name' }, { label: '' }]}
        rows={businesses.map((b) => (
          <tr key={b.id}>
            <td>
              <input
                type="radio"
                name="business"
                aria-label={`Select ${b.id}`}
                checked={b.id === selectedBusinessId}
                disabled={businessFromEnvironment}
                onChange={() => void setBusinesses(businesses, b.id)}
              />
            </td>
            <td className="mono">{b.id}</td>
            <td>{b.name}</td>
            <td>
              <button
                type="button"
                onClick={() =>
                  void setBusinesses(
                    businesses.filter((x) => x.id !== b.id),
                    selectedBusinessId === b.id ? null : selectedBusinessId,
                  )
                }
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
        empty="No business named: calls go without X-Business-Id (fine for a single-business account)."
      />
      <InlineForm onSubmit={() => void add()}>
        <TextField label="Business id" placeholder="biz_…" value={id} onChange={setId} size={24} />
        <TextField label="Business name" placeholder="name" value={name} onChange={setName} size={18} />
        <button type="submit" disabled={busy || !businessIdPattern.test(id.trim())}>
          Add business
        </button>
      </InlineForm>
    </>
  )
}

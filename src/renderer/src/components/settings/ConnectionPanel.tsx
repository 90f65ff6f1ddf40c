import { useState } from 'react'
import { useSettingsStore } from '../../stores/settings'
import { StatusBadge } from '../Status'
import { ConfigForm } from './ConfigForm'

/** Settings → Connection: the payments API and node-access addresses, each with a Test that runs
 * the real check, and the project uid (keychain only, masked). */
export function ConnectionPanel() {
  const testApi = useSettingsStore((s) => s.testApi)
  const testRpc = useSettingsStore((s) => s.testRpc)
  const testing = useSettingsStore((s) => s.testing)
  return (
    <section className="panel" aria-label="Connection">
      <h2>Connection</h2>
      <ConfigForm
        label="Connection settings"
        fields={[
          {
            key: 'apiBaseUrl',
            kind: 'text',
            placeholder: 'https://api.example.com',
            hint: 'The payments API address; watchdesk adds /v1 to every path.',
            extra: (value) => (
              <button type="button" onClick={() => void testApi(value.trim())} disabled={testing === 'api'}>
                {testing === 'api' ? 'Testing…' : 'Test'}
              </button>
            ),
          },
          {
            key: 'rpcBaseUrl',
            kind: 'text',
            placeholder: 'https://rpc.example.com',
            hint: 'Node access: each chain is polled at <rpcBaseUrl>/<slug>/<project uid>.',
            extra: (value) => (
              <button type="button" onClick={() => void testRpc(value.trim())} disabled={testing === 'rpc'}>
                {testing === 'rpc' ? 'Testing…' : 'Test'}
              </button>
            ),
          },
          {
            key: 'pollIntervalMs',
            kind: 'number',
            placeholder: '5000',
            hint: 'How often each chain is polled (250–600000 ms).',
          },
        ]}
      />
      <ApiTestResult />
      <RpcTestResult />
      <ProjectUidForm />
    </section>
  )
}

function ApiTestResult() {
  const test = useSettingsStore((s) => s.apiTest)
  if (!test) return null
  return (
    <div
      className={`banner ${test.works ? 'banner-good' : 'banner-bad'}`}
      role="status"
      data-testid="api-test"
    >
      <StatusBadge tone={test.works ? 'good' : 'bad'} label={test.works ? 'works' : 'failed'} />{' '}
      {test.message}
      {test.baseUrlNote && <p>{test.baseUrlNote}</p>}
      {test.missingScopes.length > 0 && <p>Missing scopes: {test.missingScopes.join(', ')}</p>}
    </div>
  )
}

function RpcTestResult() {
  const test = useSettingsStore((s) => s.rpcTest)
  if (!test) return null
  return (
    <div className="rpc-test" data-testid="rpc-test">
      <p className={`banner ${test.works ? 'banner-good' : 'banner-warn'}`} role="status">
        {test.message}
      </p>
      {test.chains.length > 0 && (
        <table className="grid rpc-test-table">
          <thead>
            <tr>
              <th>chain</th>
              <th>slug</th>
              <th className="num">expected id</th>
              <th className="num">answered id</th>
              <th>verdict</th>
              <th>detail</th>
            </tr>
          </thead>
          <tbody>
            {test.chains.map((c) => (
              <tr key={c.serviceId}>
                <td>{c.name}</td>
                <td className="mono">{c.slug}</td>
                <td className="num">{c.expectedChainId}</td>
                <td className="num">{c.chainId ?? '—'}</td>
                <td>
                  <StatusBadge
                    tone={c.verdict === 'ok' ? 'good' : c.verdict === 'not_polled' ? 'muted' : 'bad'}
                    label={
                      {
                        ok: 'right chain',
                        wrong_chain: 'wrong chain',
                        failed: 'no answer',
                        not_polled: 'not polled',
                      }[c.verdict]
                    }
                  />
                </td>
                <td className="wrap" title={c.detail}>
                  {c.detail}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

function ProjectUidForm() {
  const state = useSettingsStore((s) => s.projectUid)
  const setProjectUid = useSettingsStore((s) => s.setProjectUid)
  const removeProjectUid = useSettingsStore((s) => s.removeProjectUid)
  const error = useSettingsStore((s) => s.error)
  const [uid, setUid] = useState('')
  return (
    <form
      className="inline-form"
      aria-label="Project uid"
      onSubmit={(e) => {
        e.preventDefault()
        void setProjectUid(uid.trim()).then((stored) => stored && setUid(''))
      }}
    >
      <label htmlFor="project-uid" className="mono">
        project uid
      </label>
      <input
        id="project-uid"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder={state?.stored ? `stored (${state.masked})` : 'from your node-access dashboard'}
        value={uid}
        onChange={(e) => setUid(e.target.value)}
        size={30}
      />
      <button type="submit" className="primary" disabled={!uid.trim()}>
        Store in keychain
      </button>
      {state && (
        <StatusBadge
          tone={state.stored ? 'good' : 'warn'}
          label={
            state.stored
              ? `stored ${state.masked ?? ''}${state.source === 'environment' ? ' (environment)' : ''}`
              : 'not stored'
          }
          title={state.problem ?? 'keychain account "project-uid"; this window never sees it again'}
        />
      )}
      {state?.stored && state.source !== 'environment' && (
        <button type="button" onClick={() => void removeProjectUid()}>
          Remove
        </button>
      )}
      {error && <p className="field-error">{error.message}</p>}
    </form>
  )
}

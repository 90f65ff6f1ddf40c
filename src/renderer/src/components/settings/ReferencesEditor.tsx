import { useMemo, useState } from 'react'
import type { ChainInfo } from '../../../../shared/chains/registry'
import { publicRpcs } from '../../../../shared/chains/public-rpcs'
import type { FieldProblem, ReferenceTest } from '../../../../shared/contract/settings'
import { useAppStore } from '../../stores/app'
import { referenceTestKey, useSettingsStore } from '../../stores/settings'
import { StatusBadge } from '../Status'

interface SavedReference {
  name: string
  /** Masked as the back end shows it: a saved reference is tested and removed by name. */
  url: string
}

/** Settings → Chains → one chain's references: the saved ones (masked) with a Test and a Remove,
 * a form to add one (name, URL, optional headers as JSON), and the well-known public endpoints
 * of the network, each added only when the operator says so — polling a public RPC tells its
 * operator this console's address. */
export function ReferencesEditor({ chain }: { chain: ChainInfo }) {
  // The chain's saved object is stable between renders; a list made in the selector would not be.
  const own = useAppStore((s) => chainConfig(s.settings?.config, chain.serviceId))
  const saved = useMemo(() => savedReferences(own), [own])
  const remove = useSettingsStore((s) => s.removeReference)
  const add = useSettingsStore((s) => s.addReference)
  const [problems, setProblems] = useState<FieldProblem[]>([])
  const offered = (publicRpcs[chain.serviceId] ?? []).filter((p) => !saved.some((r) => r.name === p.name))
  return (
    <div className="references" aria-label={`${chain.name} references`}>
      <h4>
        References <span className="hint">(chains.{chain.serviceId}.references)</span>
      </h4>
      {saved.length === 0 ? (
        <p className="hint">
          None: the lag is estimated from block age. Two or more references corroborate the head.
        </p>
      ) : (
        <ul className="reference-list">
          {saved.map((r) => (
            <li key={r.name} data-reference={r.name}>
              <span className="mono">{r.name}</span> <span className="mono dim">{r.url}</span>
              <TestButton serviceId={chain.serviceId} name={r.name} />
              <button type="button" onClick={async () => setProblems(await remove(chain.serviceId, r.name))}>
                Remove
              </button>
              <TestResult serviceId={chain.serviceId} what={r.name} />
            </li>
          ))}
        </ul>
      )}
      <AddReference serviceId={chain.serviceId} onProblems={setProblems} />
      {problems.map((p) => (
        <p className="field-error" role="alert" key={p.key + p.message}>
          {p.key ? `${p.key}: ` : ''}
          {p.message}
        </p>
      ))}
      {offered.length > 0 && (
        <div className="public-rpcs">
          <p className="hint">
            Well-known public endpoints of {chain.name}: never polled unless added here (polling one tells its
            operator this console’s address).
          </p>
          <ul className="reference-list">
            {offered.map((p) => (
              <li key={p.url}>
                <span className="mono">{p.name}</span> <span className="mono dim">{p.url}</span>{' '}
                <span className="hint">{p.operator}</span>
                <button
                  type="button"
                  onClick={async () =>
                    setProblems(await add({ serviceId: chain.serviceId, name: p.name, url: p.url }))
                  }
                >
                  Add
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

function AddReference({
  serviceId,
  onProblems,
}: {
  serviceId: number
  onProblems: (p: FieldProblem[]) => void
}) {
  const add = useSettingsStore((s) => s.addReference)
  const test = useSettingsStore((s) => s.testReference)
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [headers, setHeaders] = useState('')
  const parsedHeaders = (): Record<string, string> | undefined | null => {
    if (!headers.trim()) return undefined
    try {
      return JSON.parse(headers) as Record<string, string>
    } catch {
      return null
    }
  }
  const submit = async () => {
    const h = parsedHeaders()
    if (h === null) return onProblems([{ key: 'headers', message: 'not valid JSON' }])
    const problems = await add({
      serviceId,
      name: name.trim(),
      url: url.trim(),
      ...(h ? { headers: h } : {}),
    })
    onProblems(problems)
    if (problems.length === 0) {
      setName('')
      setUrl('')
      setHeaders('')
    }
  }
  return (
    <form
      className="reference-add"
      aria-label={`Add a reference to chain ${serviceId}`}
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <input className="mono" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} />
      <input
        className="mono"
        placeholder="https://… (another node of this network)"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <input
        className="mono"
        placeholder='headers, JSON: {"x-api-key": "…"}'
        value={headers}
        onChange={(e) => setHeaders(e.target.value)}
      />
      <button
        type="button"
        disabled={!url.trim()}
        onClick={() =>
          void test({ serviceId, url: url.trim(), ...(parsedHeaders() ? { headers: parsedHeaders()! } : {}) })
        }
      >
        Test
      </button>
      <button type="submit" className="primary" disabled={!name.trim() || !url.trim()}>
        Add
      </button>
      <TestResult serviceId={serviceId} what={url.trim()} />
    </form>
  )
}

function TestButton({ serviceId, name }: { serviceId: number; name: string }) {
  const test = useSettingsStore((s) => s.testReference)
  const state = useSettingsStore((s) => s.referenceTests[referenceTestKey(serviceId, name)])
  return (
    <button type="button" disabled={state === 'testing'} onClick={() => void test({ serviceId, name })}>
      {state === 'testing' ? 'Testing…' : 'Test'}
    </button>
  )
}

const verdictWords: Record<ReferenceTest['verdict'], { tone: 'good' | 'bad' | 'warn'; label: string }> = {
  ok: { tone: 'good', label: 'answers' },
  wrong_chain: { tone: 'bad', label: 'wrong chain id' },
  failed: { tone: 'bad', label: 'failed' },
}

function TestResult({ serviceId, what }: { serviceId: number; what: string }) {
  const result = useSettingsStore((s) => s.referenceTests[referenceTestKey(serviceId, what)])
  if (!result || result === 'testing') return null
  const words = verdictWords[result.verdict]
  return (
    <p className="reference-test" role="status">
      <StatusBadge tone={words.tone} label={words.label} />{' '}
      <span className="num">
        chain id {result.chainId ?? '—'} (expected {result.expectedChainId}) · head{' '}
        {result.head === null ? '—' : result.head.toLocaleString('en-US')} ·{' '}
        {result.latencyMs === null ? '—' : `${Math.round(result.latencyMs)} ms`}
      </span>{' '}
      <span className="hint">{result.detail}</span>
    </p>
  )
}

type SavedChain = { referenceUrl?: string; references?: SavedReference[] } | undefined

function chainConfig(config: Record<string, unknown> | undefined, serviceId: number): SavedChain {
  return (config?.chains as Record<string, SavedChain> | undefined)?.[String(serviceId)]
}

function savedReferences(chain: SavedChain): SavedReference[] {
  const list = (chain?.references ?? []).map((r) => ({ name: r.name, url: r.url }))
  if (chain?.referenceUrl && !list.some((r) => r.name === 'reference'))
    list.unshift({ name: 'reference', url: chain.referenceUrl })
  return list
}

import { useState } from 'react'
import type { RpcExchange } from '../../../../shared/contract/chains'
import { rpcMethods } from '../../../../shared/chains/rpc-methods'
import type { ApiError } from '../../../../shared/result'
import { useChainsStore } from '../../stores/chains'

function pretty(text: string | null): string {
  if (text === null) return '(no response)'
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** One hex parameter of eth_estimateGas, typed in monospace. */
function HexField(props: {
  label: string
  title?: string
  placeholder: string
  value: string
  onChange: (value: string) => void
}) {
  return (
    <label>
      <span title={props.title}>{props.label}</span>
      <input
        placeholder={props.placeholder}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        className="mono"
      />
    </label>
  )
}

/** Sends one of the spec's four methods to this chain and shows the raw exchange. */
export function RpcConsole({ serviceId, configured }: { serviceId: number; configured: boolean }) {
  const send = useChainsStore((s) => s.send)
  const [method, setMethod] = useState<string>('eth_blockNumber')
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [value, setValue] = useState('0x0')
  const [busy, setBusy] = useState(false)
  const [exchange, setExchange] = useState<RpcExchange | null>(null)
  const [failure, setFailure] = useState<ApiError | null>(null)

  const submit = async () => {
    setBusy(true)
    const params =
      method === 'eth_estimateGas' ? [{ from: from.trim(), to: to.trim(), value: value.trim() }] : []
    const result = await send(serviceId, method, params)
    setBusy(false)
    setExchange(result.ok ? result.value : null)
    setFailure(result.ok ? null : result.error)
  }

  return (
    <section className="rpc-console" aria-label="RPC console">
      <h2>RPC console</h2>
      <form
        className="rpc-form"
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
      >
        <select aria-label="Method" value={method} onChange={(e) => setMethod(e.target.value)}>
          {rpcMethods.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        {method === 'eth_estimateGas' && (
          <>
            <HexField label="from" placeholder="0x… (40 hex digits)" value={from} onChange={setFrom} />
            <HexField label="to" placeholder="0x… (40 hex digits)" value={to} onChange={setTo} />
            <HexField
              label="value (hex)"
              title="in the smallest unit of the native currency"
              placeholder="0x0"
              value={value}
              onChange={setValue}
            />
          </>
        )}
        <button
          type="submit"
          className="primary"
          disabled={busy || !configured}
          title={configured ? undefined : 'This chain is not configured'}
        >
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
      {failure && <p className="banner banner-bad">{failure.message}</p>}
      {exchange && (
        <div className="rpc-exchange">
          <div className="rpc-meta">
            <span className="mono">{exchange.endpoint}</span>
            <span className="num">
              {exchange.httpStatus === null ? 'no HTTP answer' : `HTTP ${exchange.httpStatus}`}
            </span>
            <span className="num">{exchange.elapsedMs.toFixed(1)} ms</span>
          </div>
          {exchange.explanation && <p className="banner banner-warn">{exchange.explanation}</p>}
          {exchange.error && !exchange.explanation && (
            <p className="banner banner-bad">{exchange.error.message}</p>
          )}
          <div className="rpc-raw">
            <div>
              <h3>request</h3>
              <pre className="json" tabIndex={0} aria-label="Request JSON">
                {pretty(exchange.request)}
              </pre>
            </div>
            <div>
              <h3>response</h3>
              <pre className="json" tabIndex={0} aria-label="Response JSON">
                {pretty(exchange.response)}
              </pre>
            </div>
          </div>
        </div>
      )}
    </section>
  )
}

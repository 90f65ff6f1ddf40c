import { useState } from 'react'
import type { ShownOnce } from '../../stores/payments'

/** The create answer's secret, shown this once with a copy button; gone when dismissed. */
export function SecretOnce({ shown, onDismiss }: { shown: ShownOnce; onDismiss(): void }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no')
  const copy = async () => {
    if (!shown.secret) return
    try {
      await navigator.clipboard.writeText(shown.secret)
      setCopied('yes')
    } catch {
      setCopied('failed')
    }
  }
  return (
    <div className="secret-once" role="region" aria-label="Endpoint secret, shown once">
      <p>
        Secret of <span className="mono">{shown.endpointId}</span>
        {shown.stored ? (
          <>
            {' '}
            — stored in the OS keychain as <span className="mono">{shown.account}</span>; the listener
            verifies this endpoint with it from the next request on. It is shown here once and never again.
          </>
        ) : (
          <> — NOT stored in the keychain. Copy it now.</>
        )}
      </p>
      {shown.problem && <p className="banner banner-warn">{shown.problem}</p>}
      {shown.secret && (
        <div className="secret-row">
          <code className="secret-value" data-testid="secret-once">
            {shown.secret}
          </code>
          <button type="button" onClick={() => void copy()}>
            {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed — select it' : 'Copy'}
          </button>
          <button type="button" onClick={onDismiss}>
            Done, hide it
          </button>
        </div>
      )}
    </div>
  )
}

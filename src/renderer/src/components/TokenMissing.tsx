import { useState } from 'react'
import { rememberLaunchToken } from '../api/client'

/** A tab opened without the launch token: an alert's link, a bookmark. The token is never put in
 * a link, so it is given here (or by opening the URL serve printed); the tab keeps it for itself
 * and opens the place the link pointed at. */
export function TokenMissing() {
  const [token, setToken] = useState('')
  return (
    <main className="token-missing" role="alert">
      <h1>This console needs its launch token</h1>
      <p>
        Open the address that <code>watchdesk serve</code> printed when it started: it ends in{' '}
        <code>?token=…</code>. To choose the token yourself, start it with <code>WATCHDESK_TOKEN=…</code>.
      </p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          if (!token.trim()) return
          rememberLaunchToken(window.sessionStorage, token.trim())
          // The hash (the place a link points at) stays; the page starts again with the token.
          window.location.reload()
        }}
      >
        <label>
          Launch token{' '}
          <input
            type="password"
            autoComplete="off"
            aria-label="Launch token"
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
        </label>{' '}
        <button type="submit">Open the console</button>
      </form>
    </main>
  )
}

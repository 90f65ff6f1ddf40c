export function TokenMissing() {
  return (
    <main className="token-missing" role="alert">
      <h1>This console needs its launch token</h1>
      <p>
        Open the address that <code>watchdesk serve</code> printed when it started: it ends in{' '}
        <code>?token=…</code>. To choose the token yourself, start it with <code>WATCHDESK_TOKEN=…</code>.
      </p>
    </main>
  )
}

import { ConfigForm } from './ConfigForm'

/** Settings → Listener and notifications. host, port and TLS take effect after a restart (the
 * banner at the top says so once changed). */
export function ListenerSettingsPanel() {
  return (
    <section className="panel" aria-label="Listener and notifications settings">
      <h2>Listener and notifications</h2>
      <ConfigForm
        label="Listener settings"
        fields={[
          { key: 'listener.host', kind: 'text', placeholder: '127.0.0.1', hint: 'Restart to apply.' },
          { key: 'listener.port', kind: 'number', placeholder: '7421', hint: 'Restart to apply.' },
          {
            key: 'listener.publicUrl',
            kind: 'text',
            hint: 'Set by Connect this console; re-checked every minute.',
          },
          { key: 'listener.maxBodyBytes', kind: 'number', placeholder: '1048576' },
          { key: 'listener.headersTimeoutMs', kind: 'number', placeholder: '5000' },
          { key: 'listener.bodyTimeoutMs', kind: 'number', placeholder: '10000' },
          {
            key: 'listener.tls',
            kind: 'json',
            placeholder: '{"certFile":"…","keyFile":"…"}',
            hint: 'Restart to apply.',
          },
          {
            key: 'listener.authorizationAnswer',
            kind: 'json',
            placeholder: '{}',
            hint: 'The 200 body answered to card.authorization.request.',
          },
          {
            key: 'alerts.eventTypes',
            kind: 'list',
            placeholder: 'funding.failed, payout.*',
            hint: 'Event types that raise an alert (desktop notification and other channels), comma-separated; * matches any run.',
          },
        ]}
      />
    </section>
  )
}

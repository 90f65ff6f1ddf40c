import { chainRegistry } from '../../../../shared/chains/registry'
import { ConfigForm } from './ConfigForm'

/** Settings → Chains: per chain its slug, own URL, reference URL, whether it is polled and its
 * health thresholds. Node URLs are shown masked; a field left as it is is never sent back. */
export function ChainsSettingsPanel() {
  return (
    <section className="panel" aria-label="Chains settings">
      <h2>Chains</h2>
      <p className="hint">
        Each chain is polled at <span className="mono">rpcBaseUrl/slug/project uid</span> unless it has its
        own url. Empty fields use the default (slug from the chain, thresholds from its block time).
      </p>
      <div className="chain-settings">
        {chainRegistry.map((c) => (
          <details key={c.serviceId} className="chain-settings-item">
            <summary>
              {c.name}{' '}
              <span className="hint num">
                · {c.serviceId} · default slug {c.defaultSlug}
              </span>
            </summary>
            <ConfigForm
              label={`${c.name} settings`}
              fields={[
                { key: `chains.${c.serviceId}.enabled`, kind: 'bool', hint: 'Poll this chain.' },
                { key: `chains.${c.serviceId}.slug`, kind: 'text', placeholder: c.defaultSlug },
                {
                  key: `chains.${c.serviceId}.url`,
                  kind: 'text',
                  placeholder: 'own node URL (over rpcBaseUrl)',
                },
                {
                  key: `chains.${c.serviceId}.referenceUrl`,
                  kind: 'text',
                  placeholder: 'a second node to measure lag against',
                },
                {
                  key: `chains.${c.serviceId}.laggingAfterSeconds`,
                  kind: 'number',
                  hint: 'Head older than this: lagging.',
                },
                {
                  key: `chains.${c.serviceId}.stalledAfterSeconds`,
                  kind: 'number',
                  hint: 'Head older than this: stalled.',
                },
                {
                  key: `chains.${c.serviceId}.pollIntervalMs`,
                  kind: 'number',
                  placeholder: 'pollIntervalMs',
                },
              ]}
            />
          </details>
        ))}
      </div>
    </section>
  )
}

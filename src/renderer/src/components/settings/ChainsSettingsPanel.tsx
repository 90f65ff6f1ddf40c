import { chainRegistry } from '../../../../shared/chains/registry'
import { ConfigForm } from './ConfigForm'
import { ReferencesEditor } from './ReferencesEditor'
import { ClockNote } from '../clock/ClockTile'
import { useClockStore } from '../../stores/clock'

/** Settings → Chains: per chain its slug, own URL, whether it is polled, its health thresholds
 * and its references (with a Test each, and the network's well-known public endpoints). Node URLs are shown masked; a field left as it is is never sent back. */
export function ChainsSettingsPanel() {
  const clock = useClockStore((s) => s.status)
  return (
    <section className="panel" aria-label="Chains settings">
      <h2>Chains</h2>
      {/* Block ages are only as right as this machine's clock (issue 32.3). */}
      <ClockNote status={clock} />
      <ConfigForm
        label="Clock settings"
        fields={[
          {
            key: 'clock.offsetWarnSeconds',
            kind: 'number',
            placeholder: '5',
            hint: 'Seconds the clock may be off (agreed by two references) before it is reported and block ages are corrected.',
          },
        ]}
      />
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
                  key: `chains.${c.serviceId}.quorum`,
                  kind: 'number',
                  placeholder: '2',
                  hint: 'Sources that must reach a height for it to be the chain’s head.',
                },
                {
                  key: `chains.${c.serviceId}.disagreeAfterBlocks`,
                  kind: 'number',
                  placeholder: 'a stall’s worth of blocks',
                  hint: 'Sources further apart than this are ahead, behind, or disagree.',
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
            <ReferencesEditor chain={c} />
          </details>
        ))}
      </div>
    </section>
  )
}

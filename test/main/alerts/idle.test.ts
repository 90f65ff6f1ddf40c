import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig, useRecorder } from './harness'

/** `alerts.idle()`: what tests await before reading what was alerted. */
describe('the alerts at rest', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  it('are idle only once every committed event is alerted, also one whose notice has not come yet', async () => {
    const node = await standin(polygon())
    const hook = await recorder()
    const r = await rig(
      {
        chains: { '137': { url: node.url, pollIntervalMs: 5000 } },
        alerts: { channels: { ops: { type: 'webhook' } } },
      },
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts` }),
    )
    // Committed by the commit worker; its reply (and so the notice) not taken yet. A catch-up test
    // saw idle() return here and two of five flagged events alerted after it had read the log.
    r.store([{ id: 'evt_unnoticed', type: 'payout.failed' }])
    await r.alerts.idle()
    expect(hook.received.map((h) => h.json.subject)).toEqual(['event:evt_unnoticed'])
  })
})

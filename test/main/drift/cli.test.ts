import { describe, expect, it } from 'vitest'
import { openReadModel, readTools } from '../../../src/main/cli/mcp-tools'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import type { RunningConsole } from '../../../src/main/serve'
import { unwrap } from '../../../src/shared/result'
import { callApi, useTestConsole } from '../../support/console'
import { runMain } from '../../support/cli'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

/** `watchdesk events shapes` and `events shapes ack` as child processes beside a running console,
 * and the MCP read tool `payload_shapes`, over the same data dir (SQLite on disk, config.json). */

const secret = 'whsec_drift_cli_0123456789'
const wait = { timeoutMs: 30_000 }

async function deliver(c: RunningConsole, id: string, data: unknown): Promise<number> {
  const body = JSON.stringify({ id, type: 'card.created', created_at: new Date().toISOString(), data })
  const response = await fetch(`${c.backend.services.webhooks.address().url}/webhooks/wh_1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, body) },
    body,
  })
  return response.status
}

describe('payload shapes from the command line and MCP', () => {
  const tempDir = useTempDir('watchdesk-drift-cli-')
  const startConsole = useTestConsole()

  it('lists the change with its first event, acknowledges it from another process (the running console closes the warning), and answers the same over MCP', async () => {
    const dataDir = tempDir()
    const c = await startConsole({ dataDir, secrets: createMemoryStore({ 'webhook-secret:wh_1': secret }) })
    unwrap(await c.backend.context.updateConfig((saved) => void (saved.drift = { learnEvents: 2 })))
    expect(await deliver(c, 'evt_c_0', { id: 'card_0', last4: '4242' })).toBe(200)
    expect(await deliver(c, 'evt_c_1', { id: 'card_1', last4: '4242' })).toBe(200)
    expect(await deliver(c, 'evt_c_2', { id: 'card_2', last4: 4242, '\u001b[31mred': 1 })).toBe(200)
    await waitFor(
      async () =>
        (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length === 1
          ? true
          : undefined,
      'the warning incident',
      wait,
    )

    const env = { ...process.env, WATCHDESK_DATA_DIR: dataDir }
    const listed = await runMain(['events', 'shapes'], env)
    expect(listed.stderr).toBe('')
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/card\.created\s+3 events\s+3 fields/)
    expect(listed.stdout).toContain('evt_c_2')
    expect(listed.stdout).toContain('last4 retyped string → number')
    expect(listed.stdout).toContain('WARNING')
    // A field name from an event is inert on the terminal.
    expect(listed.stdout).not.toContain('\u001b[31m')
    const json = JSON.parse((await runMain(['events', 'shapes', '--json'], env)).stdout)
    expect(json).toMatchObject({ unacknowledged: 1, drifts: [{ eventId: 'evt_c_2', acknowledged: false }] })

    const opened = openReadModel(dataDir)
    if (!opened.ok) throw new Error(opened.message)
    const mcp = opened.value
    try {
      const answer = readTools.payload_shapes.run(mcp, {}, Date.now()) as { drifts: { eventId: string }[] }
      expect(answer.drifts.map((d) => d.eventId)).toEqual(['evt_c_2'])
      const fields = readTools.payload_shapes.run(mcp, { type: 'card.created' }, Date.now()) as {
        fields: { path: string; types: string[] }[]
      }
      expect(fields.fields.find((f) => f.path === 'last4')).toEqual({
        path: 'last4',
        types: ['number', 'string'],
        present: 3,
      })
    } finally {
      mcp.close()
    }

    const acked = await runMain(['events', 'shapes', 'ack', 'card.created', 'last4', '*red*'], env)
    expect(acked.stderr).toBe('')
    expect(acked.code).toBe(0)
    expect(acked.stdout).toContain('"card.created last4"')
    await waitFor(
      async () =>
        (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length === 0
          ? true
          : undefined,
      'the running console to close the warning',
      wait,
    )
    expect((await callApi(c, 'drift.status')).json.value.unacknowledged).toBe(0)
    expect((await runMain(['events', 'shapes'], env)).stdout).toContain('acknowledged')
  }, 180_000)

  it('says how to start when the data dir holds no database', async () => {
    const listed = await runMain(['events', 'shapes', '--data-dir', tempDir()])
    expect(listed.code).toBe(3)
    expect(listed.stderr).toContain('holds no database yet')
  }, 60_000)
})

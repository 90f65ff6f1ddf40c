import { performance } from 'node:perf_hooks'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli'
import { cliPath, useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useTestTargets } from './target'

const webhookSecret = 'whsec_cross_process_3f9a1c'

/** Issue 29 item 6: `watchdesk mcp --allow-write` → `replay_events` answered `queued: 1`, and the
 * running console sent it only when an unrelated webhook arrived (75 s later in the report). The
 * console's forward worker now sees other processes' commits (PRAGMA data_version). */
describe('a replay queued by another process', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-cross-process-')
  const startTarget = useTestTargets()
  const clients: Client[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })
  const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: webhookSecret } as Record<string, string>

  it('an MCP replay_events reaches the app from the running console with no other traffic', async () => {
    const app = await startTarget()
    const dir = tempDir()
    const set = await runMain(['config', 'set', 'forward.targets.app.url', app.url, '--data-dir', dir], env)
    expect(set.code, set.stderr).toBe(0)
    await serve(['--data-dir', dir], env)
    const sent = await runMain(
      ['send-test-event', 'funding.completed', '--endpoint', 'env-1', '--data-dir', dir],
      env,
    )
    expect(sent.code, sent.stderr).toBe(0)
    const first = await waitFor(() => app.received[0], 'the event forwarded once')
    const id = first.id!
    await waitFor(() => app.acknowledged.has(id) || undefined, 'the first delivery answered')

    const client = new Client({ name: 'watchdesk-test', version: '1.0.0' })
    clients.push(client)
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp', '--data-dir', dir, '--allow-write'],
        env,
        stderr: 'pipe',
      }),
    )
    const before = app.received.length
    const result = (await client.callTool({
      name: 'replay_events',
      arguments: { ids: [id], target: 'app' },
    })) as {
      isError?: boolean
      content: { text: string }[]
    }
    const answeredAt = performance.now()
    expect(result.isError ?? false).toBe(false)
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ queued: 1, target: 'app' })
    // Nothing else is sent to the console meanwhile: only the replay can wake it.
    const replayed = await waitFor(
      () => app.received.slice(before).find((r) => r.headers['x-watchdesk-replay'] === '1'),
      'the replay at the app',
      { timeoutMs: 20_000 },
    )
    const ms = performance.now() - answeredAt
    console.log(`MCP replay_events answer → the app received the replay: ${Math.round(ms)} ms`)
    expect(replayed.id).toBe(id)
    expect(app.received.slice(before)).toHaveLength(1)
  }, 90_000)
})

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli'
import { cliPath, postSigned, useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

const webhookSecret = 'whsec_mcp_test_7c1d9e0b4a55'
const apiKey = 'sk_sandbox_mcp_secret_4b1e8f'
const targetPassword = 'hunter2-target-pw'

/** `bin/watchdesk mcp` driven by the MCP SDK's own client over stdio, against the data dir of a
 * running `serve` that stored real signed deliveries. */
describe('watchdesk mcp', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-mcp-')
  // After-hooks run in reverse: the file's serve stops before its data dir is removed.
  const tempDirForFile = useTempDir('watchdesk-mcp-', { per: 'file' })
  const serveForFile = useServeProcess({ per: 'file' })
  const clients: Client[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })

  const env = {
    ...process.env,
    WATCHDESK_WEBHOOK_SECRETS: webhookSecret,
    WATCHDESK_API_KEY: apiKey,
  } as Record<string, string>

  let withEvents: Promise<string> | undefined
  /** One console for the file's first two tests, in their order: the read-only one, then the one
   * that mutes and replays (a serve start is about 2.5 s of CPU). */
  const consoleWithEvents = (): Promise<string> =>
    (withEvents ??= (async () => {
      const dir = tempDirForFile()
      const target = `http://ops:${targetPassword}@127.0.0.1:9/hook?key=${targetPassword}`
      expect(
        (await runMain(['config', 'set', 'forward.targets.app.url', target, '--data-dir', dir], env)).code,
      ).toBe(0)
      await serveForFile(['--data-dir', dir], env)
      for (const type of ['funding.completed', 'funding.completed', 'payout.failed']) {
        const sent = await runMain(['send-test-event', type, '--endpoint', 'env-1', '--data-dir', dir], env)
        expect(sent.code, sent.stderr).toBe(0)
      }
      return dir
    })())

  async function connect(dir: string, ...flags: string[]): Promise<Client> {
    const client = new Client({ name: 'watchdesk-test', version: '1.0.0' })
    clients.push(client)
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp', '--data-dir', dir, ...flags],
        env,
        stderr: 'pipe',
      }),
    )
    return client
  }

  const answers: string[] = []
  async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean
      content: { type: string; text: string }[]
    }
    const text = result.content.map((c) => c.text).join('\n')
    answers.push(text)
    return { isError: result.isError === true, text, json: result.isError ? null : JSON.parse(text) }
  }

  it('is read-only by default: lists read tools only, searches events, reads a chain, refuses a write', async () => {
    const dir = await consoleWithEvents()
    const client = await connect(dir)
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name).sort()
    expect(names).toEqual([
      'alert_log',
      'chain_status',
      'clock_status',
      'endpoint_deadlines',
      'forward_status',
      'get_event',
      'incidents',
      'listener_status',
      'payload_shapes',
      'relay_sources',
      'replay_suspects',
      'search_events',
    ])
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true)

    const funding = await call(client, 'search_events', { filter: { types: ['funding.completed'] } })
    expect(funding.json.rows).toHaveLength(2)
    expect(funding.json.rows.every((r: { type: string }) => r.type === 'funding.completed')).toBe(true)

    const one = await call(client, 'get_event', { id: funding.json.rows[0].id })
    expect(one.json).toMatchObject({ found: true, event: { id: funding.json.rows[0].id } })
    expect(one.json.event.body).toBeUndefined()
    expect(one.json.event.arrivals).toEqual([
      expect.objectContaining({ verdict: 'first', conflicted: false }),
    ])
    const withBody = await call(client, 'get_event', { id: funding.json.rows[0].id, includeBody: true })
    expect(JSON.parse(withBody.json.event.body).type).toBe('funding.completed')

    const polygon = await call(client, 'chain_status', { serviceId: 137 })
    expect(polygon.json.console.running).toBe(true)
    expect(polygon.json.chains).toHaveLength(1)
    expect(polygon.json.chains[0]).toMatchObject({ serviceId: 137 })

    const listener = await call(client, 'listener_status')
    expect(listener.json).toMatchObject({ console: { running: true, listening: true }, eventsLastHour: 3 })

    // No outage recorded, no gap between runs: nothing near its last retry.
    const deadlines = await call(client, 'endpoint_deadlines')
    expect(deadlines.json).toMatchObject({ state: 'clear', deadline: null, failedFrom: null, incidents: [] })

    const forward = await call(client, 'forward_status')
    expect(forward.json.targets).toEqual([
      expect.objectContaining({ name: 'app', origin: 'http://127.0.0.1:9' }),
    ])

    const write = await client
      .callTool({ name: 'mute_alerts', arguments: { minutes: 5 } })
      .then((r) => r as { isError?: boolean; content: { text: string }[] })
      .catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }))
    expect(write.isError).toBe(true)
    expect(write.content[0]!.text).toMatch(/not found|mute_alerts/)

    const resources = await client.listResources()
    expect(resources.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['watchdesk://openapi/console.json', 'watchdesk://openapi/relay.json']),
    )

    for (const text of answers) {
      for (const secret of [webhookSecret, apiKey, targetPassword]) expect(text).not.toContain(secret)
    }
  })

  it('with --allow-write: mute and replay are offered, and each call is in the alert log with its arguments', async () => {
    const dir = await consoleWithEvents()
    const client = await connect(dir, '--allow-write')
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['replay_events', 'mute_alerts']))

    const mute = await call(client, 'mute_alerts', { minutes: 30, reason: 'deploy' })
    expect(mute.json.muted).toBe(true)
    const rows = (await call(client, 'search_events', {})).json.rows as { id: string }[]
    const replay = await call(client, 'replay_events', { ids: [rows[0]!.id], target: 'app' })
    expect(replay.json).toEqual({ queued: 1, target: 'app' })
    const unknown = await call(client, 'replay_events', { ids: [rows[0]!.id], target: 'nope' })
    expect(unknown).toMatchObject({ isError: true })
    expect(unknown.text).toContain('No forward target "nope"')

    const log = (await call(client, 'alert_log', {})).json.log as {
      rule: string
      subject: string
      detail: string
    }[]
    const writes = log.filter((l) => l.rule === 'mcp.write')
    expect(writes.map((w) => w.subject).sort()).toEqual([
      'mcp:mute_alerts',
      'mcp:replay_events',
      'mcp:replay_events',
    ])
    expect(writes.find((w) => w.subject === 'mcp:mute_alerts')!.detail).toContain('"reason":"deploy"')

    for (const text of answers) {
      for (const secret of [webhookSecret, apiKey, targetPassword]) expect(text).not.toContain(secret)
    }
  })

  it('flags a failed write as an error and logs it failed with why; get_event keeps both bodies of a conflict until includeBody; a mute over MCP says mcp', async () => {
    const dir = tempDir()
    const console = await serve(['--data-dir', dir], env)
    const envelope = (amount: number) =>
      JSON.stringify({
        id: 'evt_mcp_conflict',
        type: 'funding.completed',
        created_at: '2026-11-20T10:15:00Z',
        data: { id: 'fund_mcp_conflict', amount },
      })
    expect(await postSigned(console.listenerUrl!, webhookSecret, envelope(1))).toBe(200)
    expect(await postSigned(console.listenerUrl!, webhookSecret, envelope(2))).toBe(200)
    const client = await connect(dir, '--allow-write')

    // A replay to a target that does not exist, and one of ids nothing stored: refused, logged failed.
    const noTarget = await call(client, 'replay_events', { ids: ['evt_mcp_conflict'], target: 'nope' })
    expect(noTarget).toMatchObject({ isError: true })
    expect(noTarget.text).toMatch(/^No forward target "nope": configured targets are none\.$/)
    const noEvent = await call(client, 'replay_events', { ids: ['evt_never_stored'], target: 'nope' })
    expect(noEvent.isError).toBe(true)
    const log = (await call(client, 'alert_log', {})).json.log as {
      rule: string
      result: string
      detail: string
    }[]
    const writes = log.filter((l) => l.rule === 'mcp.write')
    expect(writes.map((w) => w.result)).toEqual(['failed', 'failed'])
    expect(writes[1]!.detail).toContain('No forward target "nope"')
    expect(writes[1]!.detail).toContain('"ids":["evt_mcp_conflict"]')

    // The conflicting redelivery's body is a raw body too: only with includeBody.
    const plain = await call(client, 'get_event', { id: 'evt_mcp_conflict' })
    expect(plain.json.event).toMatchObject({ id: 'evt_mcp_conflict', conflicts: 1 })
    expect(plain.json.event.body).toBeUndefined()
    expect(plain.json.event.conflictBody).toBeUndefined()
    for (const body of [envelope(1), envelope(2)])
      expect(JSON.stringify(plain.json)).not.toContain(JSON.stringify(body).slice(1, -1))
    expect(plain.json.conflictBody).toBe('omitted: ask with includeBody: true')
    const full = await call(client, 'get_event', { id: 'evt_mcp_conflict', includeBody: true })
    expect(full.json.event).toMatchObject({ body: envelope(1), conflictBody: envelope(2) })
    // Its created_at is days old, past the whole retry ladder: the redelivery is a suspected replay,
    // and the conflict stays its own flag beside that verdict.
    expect(
      plain.json.event.arrivals.map((a: { verdict: string; conflicted: boolean }) => [
        a.verdict,
        a.conflicted,
      ]),
    ).toEqual([
      ['first', false],
      ['suspected_replay', true],
    ])
    const suspects = await call(client, 'replay_suspects', {})
    expect(suspects.json).toMatchObject({
      count: 1,
      suspects: [{ id: 'evt_mcp_conflict', type: 'funding.completed' }],
    })
    expect(suspects.json.suspects[0].reason).toMatch(/older than the whole retry ladder/)

    // The console lists the mute as set over MCP, not as its own.
    expect((await call(client, 'mute_alerts', { minutes: 10 })).isError).toBe(false)
    const mutes = await fetch(`${console.consoleUrl}/api/call/alerts.mutes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${console.token}`, 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => r.json() as Promise<{ value: { mutes: { source: string; description: string }[] } }>)
    expect(mutes.value.mutes).toEqual([
      expect.objectContaining({ source: 'mcp', description: expect.stringContaining('muted over MCP') }),
    ])
  })
})

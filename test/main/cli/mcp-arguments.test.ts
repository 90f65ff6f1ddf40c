import { readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultDataDir } from '../../../src/main/config'
import { databaseFileName, openDatabase } from '../../../src/main/db'
import { unwrap } from '../../../src/shared/result'
import { cliPath, repoRoot } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

type Answer = { isError: boolean; text: string }

/** Arguments an agent could send: the right names with any values, wrong types, huge and odd
 * strings (any Unicode, controls, lone surrogates), extra keys. */
const anyValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'binary', minLength: 5000, maxLength: 20_000 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.integer()), { maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
)
const argumentsFor = (keys: string[]) =>
  fc.oneof(
    fc.record(Object.fromEntries(keys.map((k) => [k, anyValue])), { requiredKeys: [] }),
    fc.dictionary(fc.oneof(fc.constantFrom('id', ...keys), fc.string({ unit: 'binary' })), anyValue, {
      maxKeys: 5,
    }),
  )

const tools: Record<string, string[]> = {
  search_events: ['filter', 'after', 'limit'],
  get_event: ['id', 'includeBody'],
  replay_suspects: ['hours'],
  chain_status: ['serviceId'],
  clock_status: [],
  incidents: ['open', 'serviceId', 'limit'],
  alert_log: ['limit', 'incidentId'],
  listener_status: [],
  payload_shapes: ['type'],
  forward_status: [],
  endpoint_deadlines: [],
  relay_sources: [],
  replay_events: ['ids', 'target'],
  mute_alerts: ['minutes', 'serviceIds', 'reason'],
}

describe('watchdesk mcp and any arguments', () => {
  const tempDir = useTempDir('watchdesk-mcp-args-')
  const clients: Client[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })

  it('every tool answers any arguments with a result or an isError sentence, and the server keeps serving', async () => {
    const dir = tempDir()
    unwrap(openDatabase(join(dir, databaseFileName))).close()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ forward: { targets: { app: { url: 'http://127.0.0.1:9/h' } } } }),
    )
    const client = new Client({ name: 'watchdesk-property-test', version: '1.0.0' })
    clients.push(client)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', '--allow-write', '--data-dir', dir],
      env: process.env as Record<string, string>,
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
    await client.connect(transport)

    const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
      try {
        const result = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean
          content: { text: string }[]
        }
        return { isError: result.isError === true, text: result.content.map((c) => c.text).join('\n') }
      } catch (error) {
        // The SDK refuses some arguments as a protocol error (invalid params): also an answer.
        return { isError: true, text: (error as Error).message }
      }
    }
    for (const [name, keys] of Object.entries(tools)) {
      await fc.assert(
        fc.asyncProperty(argumentsFor(keys), async (args) => {
          const answer = await call(name, args)
          if (answer.isError) {
            expect(answer.text).toMatch(/\w+.{10,}/s)
            expect(answer.text).not.toMatch(/\n\s+at .+:\d+:\d+/)
          } else expect(() => JSON.parse(answer.text) as unknown).not.toThrow()
        }),
        { numRuns: 25 },
      )
    }
    // Still serving after everything above, with nothing on stderr that looks like a crash.
    expect((await client.listTools()).tools).toHaveLength(Object.keys(tools).length)
    expect(JSON.parse((await call('listener_status', {})).text)).toHaveProperty('eventsLastHour', 0)
    expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  }, 120_000)

  it("docs/mcp.md's client example points at the console's default data dir", () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'mcp.md'), 'utf8')
    const block = /```json[^\n]*\n([\s\S]*?)```/.exec(doc)![1]!
    const { args } = (JSON.parse(block) as { mcpServers: { watchdesk: { args: string[] } } }).mcpServers
      .watchdesk
    const dataDir = args[args.indexOf('--data-dir') + 1]!
    expect(dataDir.replace('/home/you', homedir())).toBe(defaultDataDir({}, 'linux'))
  })
})

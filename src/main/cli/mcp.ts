import type { Command } from 'commander'
import { consoleOpenApi, relayOpenApi } from '../../shared/openapi'
import { readSnapshot } from '../db'
import { redact } from '../log'
import { version } from '../version'
import type { CliContext, CommonOptions } from './common'
import { dataDirOf, example, withCommon } from './common'
import { exitCodes, failure } from './exit'
import { openReadModel, readTools, recordWrite, Refusal, writeTools } from './mcp-tools'
import type { McpTool, ReadModel } from './mcp-tools'

interface McpOptions extends CommonOptions {
  allowWrite?: boolean
}

/** `watchdesk mcp`: a Model Context Protocol server on stdio for an agent (a desktop MCP client),
 * over this data dir's events, chains, incidents, listener, forwarding and sources. Read-only
 * unless --allow-write, which adds replay and mute, each recorded in the alert log. stdout is the
 * protocol: nothing else is printed there. */
export function registerMcp(program: Command, ctx: CliContext): void {
  const command = withCommon(program.command('mcp'), { json: false })
    .description(
      'Serves the data dir to an MCP client over stdio: search and read events, chains, incidents, the alert log, listener, forwarding and relay sources; the OpenAPI documents as resources. --allow-write adds replay_events and mute_alerts, each recorded in the alert log.',
    )
    .option('--allow-write', 'also offer replay_events and mute_alerts')
    .action(async (options: McpOptions) => ctx.exit(await runMcp(options, ctx)))
  example(command, 'watchdesk mcp --data-dir ~/.local/share/watchdesk', 'watchdesk mcp --allow-write')
}

async function runMcp(options: McpOptions, ctx: CliContext): Promise<number> {
  const dataDir = dataDirOf(options, ctx.io)
  const opened = openReadModel(dataDir)
  if (!opened.ok) return failure(ctx.io, 'mcp', opened.message, exitCodes.cannotRun)
  const model = opened.value
  // Loaded when used: the SDK is no weight for any other command.
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  const server = new McpServer({ name: 'watchdesk', version })
  const tools: Record<string, McpTool> = { ...readTools, ...(options.allowWrite ? writeTools : {}) }
  for (const [name, tool] of Object.entries(tools)) {
    server.registerTool(
      name,
      {
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: !tool.write, destructiveHint: false },
      },
      async (args: Record<string, unknown>) => answerCall(dataDir, model, name, tool, args),
    )
  }
  for (const [name, generate] of Object.entries({ console: consoleOpenApi, relay: relayOpenApi })) {
    const uri = `watchdesk://openapi/${name}.json`
    server.registerResource(
      `openapi-${name}`,
      uri,
      {
        mimeType: 'application/json',
        description: `OpenAPI 3.1 of the ${name} API (generated from the contract)`,
      },
      async () => ({
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(generate(version)) }],
      }),
    )
  }
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
  process.stdin.once('end', () => void server.close())
  await server.connect(transport)
  await closed
  model.close()
  return exitCodes.ok
}

type CallOutcome = { ok: true; answer: unknown } | { ok: false; message: string }

/** A read tool answers from one snapshot of the database: the console keeps committing while it
 * reads, and an answer must not mix rows from before a commit with rows from after it. */
export function runTool(
  model: ReadModel,
  name: string,
  tool: McpTool,
  args: Record<string, unknown>,
  now: number,
) {
  try {
    const run = () => tool.run(model, args as never, now)
    const answer = tool.write ? run() : readSnapshot(model.db, run)
    if (answer instanceof Refusal) return { ok: false, message: answer.message } satisfies CallOutcome
    return { ok: true, answer } satisfies CallOutcome
  } catch (error) {
    return { ok: false, message: `${name} failed: ${(error as Error).message}` } satisfies CallOutcome
  }
}

/** One tool call: its answer, or a refusal or failure flagged `isError` with its sentence. A write
 * is in the alert log (sent, or failed with why) before it is answered; a log that cannot be
 * written is said in the answer, not hidden. Every text passes the last guard of the command
 * line: no secret leaves. */
function answerCall(
  dataDir: string,
  model: ReadModel,
  name: string,
  tool: McpTool,
  args: Record<string, unknown>,
) {
  const now = Date.now()
  const outcome: CallOutcome = runTool(model, name, tool, args, now)
  let unlogged = ''
  if (tool.write)
    try {
      recordWrite(dataDir, name, args, outcome, now)
    } catch (error) {
      unlogged = ` (not recorded in the alert log: ${(error as Error).message})`
    }
  if (!outcome.ok)
    return { isError: true, content: [{ type: 'text' as const, text: redact(outcome.message + unlogged) }] }
  const answer =
    unlogged && typeof outcome.answer === 'object'
      ? { ...outcome.answer, warning: unlogged.trim() }
      : outcome.answer
  return { content: [{ type: 'text' as const, text: redact(JSON.stringify(answer, null, 2)) }] }
}

import type { Command } from 'commander'
import type { CliContext } from './common'

/** Declares a module's commands on the program (commander), with their actions. */
export type RegisterCommands = (program: Command, ctx: CliContext) => void

/** One top-level command. `watchdesk --help` and a usage error are answered from this table alone;
 * a command's module (and with it the back end it needs) is imported only when that command runs
 * or shows its own help, so a start pays for one command, not for all of them (issue 33.4). */
export interface CommandEntry {
  name: string
  /** As `watchdesk --help` lists it: the name, `[options]` when it has any, its arguments.
   * test/main/cli/commands.test.ts checks it against the command its module declares. */
  term: string
  /** The one line `watchdesk --help` (and shell completion) shows for it. */
  summary: string
  /** The module that declares it; backup.ts declares `backup` and `restore`. */
  load: () => Promise<RegisterCommands>
}

/** In the order `watchdesk --help` lists them. */
export const commandTable: readonly CommandEntry[] = [
  {
    name: 'serve',
    term: 'serve [options]',
    summary: 'start the console and the webhook listener',
    load: async () => (await import('./serve-command')).registerServe,
  },
  {
    name: 'events',
    term: 'events [options]',
    summary: 'list stored webhook events; --follow for new ones',
    load: async () => (await import('./events')).registerEvents,
  },
  {
    name: 'chains',
    term: 'chains [options]',
    summary: 'check the twelve networks once; --watch to keep checking',
    load: async () => (await import('./chains')).registerChains,
  },
  {
    name: 'wallets',
    term: 'wallets [options]',
    summary: 'the wallets of a business',
    load: async () => (await import('./wallets')).registerWallets,
  },
  {
    name: 'webhooks',
    term: 'webhooks',
    summary: 'list, create and delete webhook endpoints',
    load: async () => (await import('./webhooks')).registerWebhooks,
  },
  {
    name: 'send-test-event',
    term: 'send-test-event [options] <type>',
    summary: 'post a signed sample event to the running listener',
    load: async () => (await import('./send-test-event')).registerSendTestEvent,
  },
  {
    name: 'keys',
    term: 'keys',
    summary: 'API keys in the OS keychain: set, list, select, remove',
    load: async () => (await import('./keys')).registerKeys,
  },
  {
    name: 'project-uid',
    term: 'project-uid',
    summary: 'store the node-access project uid in the keychain',
    load: async () => (await import('./project-uid')).registerProjectUid,
  },
  {
    name: 'config',
    term: 'config',
    summary: 'get, set and unset config.json keys',
    load: async () => (await import('./config')).registerConfig,
  },
  {
    name: 'alerts',
    term: 'alerts',
    summary: 'alert channels',
    load: async () => (await import('./alerts')).registerAlerts,
  },
  {
    name: 'relay',
    term: 'relay [options]',
    summary: 'always-on receiver: the listener and the sync API over one store (SQLite or PostgreSQL)',
    load: async () => (await import('./relay')).registerRelay,
  },
  {
    name: 'sources',
    term: 'sources',
    summary: 'relays this console follows (add, list, remove)',
    load: async () => (await import('./sources')).registerSources,
  },
  {
    name: 'listen',
    term: 'listen [options]',
    summary: 'the listener, store and forwarder without the console (like stripe listen)',
    load: async () => (await import('./listen')).registerListen,
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    summary: 'check this machine: Node, keychain, data dir, config, ports, service, nodes, relays',
    load: async () => (await import('./doctor')).registerDoctor,
  },
  {
    name: 'openapi',
    term: 'openapi [options] <api>',
    summary: 'print the OpenAPI 3.1 document of the console API or the relay sync API',
    load: async () => (await import('./openapi')).registerOpenApi,
  },
  {
    name: 'completion',
    term: 'completion [options] <shell>',
    summary: 'print a shell completion script (bash, zsh or fish)',
    load: async () => (await import('./completion')).registerCompletion,
  },
  {
    name: 'mcp',
    term: 'mcp [options]',
    summary: 'a Model Context Protocol server on stdio (read-only unless --allow-write)',
    load: async () => (await import('./mcp')).registerMcp,
  },
  {
    name: 'backup',
    term: 'backup [options] <file>',
    summary: "copy a running console's or SQLite relay's database and config into one file",
    load: async () => (await import('./backup')).registerBackup,
  },
  {
    name: 'restore',
    term: 'restore [options] <file>',
    summary: 'restore a backup into an empty data dir',
    load: async () => (await import('./backup')).registerBackup,
  },
  {
    name: 'storage',
    term: 'storage [options]',
    summary: 'disk use: data dir, database, events stored, oldest event, free space',
    load: async () => (await import('./storage')).registerStorage,
  },
  {
    name: 'store',
    term: 'store',
    summary: 'move a history between stores',
    load: async () => (await import('./store')).registerStore,
  },
]

/** Completion prints the whole command tree, so it needs every module. */
const needsEveryCommand = new Set(['completion'])

/** The command that `argv` (logging flags already taken off) runs or asks help for, or null (no
 * command, or one the table does not know: commander answers that from the table). 'all' when
 * every module is needed. Global flags take no value, so the first word that is not a flag is the
 * command; `help <command>` asks for that command's help. */
export function commandToLoad(argv: readonly string[]): string | 'all' | null {
  const words = argv.filter((word) => !word.startsWith('-'))
  const name = words[0] === 'help' ? words[1] : words[0]
  if (name === undefined) return null
  if (needsEveryCommand.has(name)) return 'all'
  return commandTable.some((entry) => entry.name === name) ? name : null
}

/** Declares on `program` the commands `wanted` names with their modules, and every other command
 * from the table alone (its name, arguments and summary: enough for `--help`, usage errors and
 * suggestions), in the table's order. */
export async function declareCommands(
  program: Command,
  ctx: CliContext,
  wanted: string | 'all' | null,
): Promise<void> {
  const registered = new Set<RegisterCommands>()
  for (const entry of commandTable) {
    if (wanted !== 'all' && entry.name !== wanted) continue
    const register = await entry.load()
    if (registered.has(register)) continue
    registered.add(register)
    register(program, ctx)
  }
  const declared = new Map(program.commands.map((command) => [command.name(), command]))
  for (const entry of commandTable) {
    const command = declared.get(entry.name) ?? program.command(entry.name)
    command.summary(entry.summary)
  }
  const order = new Map(commandTable.map((entry, index) => [entry.name, index]))
  // commander lists commands in the order they were added; the loaded modules came first.
  ;(program.commands as Command[]).sort((a, b) => (order.get(a.name()) ?? 0) - (order.get(b.name()) ?? 0))
  const terms = new Map(commandTable.map((entry) => [entry.name, entry.term]))
  const listed = program.createHelp()
  program.configureHelp({
    // Only this program's own list of commands: a declared-only command has no options or
    // arguments to derive its term from.
    subcommandTerm: (command) =>
      (command.parent === program ? terms.get(command.name()) : undefined) ?? listed.subcommandTerm(command),
  })
}

import { Argument } from 'commander'
import type { Command, Option } from 'commander'
import { chainRegistry } from '../../shared/chains/registry'
import { eventTypes } from '../../shared/events'
import type { CliContext } from './common'
import { example, withCommon } from './common'
import { exitCodes } from './exit'

/** `watchdesk completion bash|zsh|fish`: a completion script derived from commander's own command
 * tree at the moment it is printed, so a command or flag added to the CLI is completed without a
 * second list to keep. Values come from an option's or argument's declared choices (commander's
 * `.choices()`), from the same static data the commands check against (event types, chain ids),
 * and from the shell's own file and directory completion for path options.
 *
 * The three scripts hold the same tables and walk the typed words the same way (commander's way:
 * options of a command and of its parents anywhere after it, `--flag=value`, variadic options take
 * every word up to the next flag, a subcommand only as a command's first argument), so a line
 * completes alike in bash, zsh and fish (test/main/cli/completion.test.ts runs one table of cases
 * in each real shell).
 *
 * Configured names (keys, sources, targets, channels) are not completed: they live in config.json
 * (JSON the shells cannot read without a parser) under a data dir that --data-dir, --config and
 * WATCHDESK_DATA_DIR decide, and asking watchdesk itself costs a full Node start at every TAB. */

/** What can follow an option or stand at an argument's place. */
export type ValueSpec =
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'file' }
  | { kind: 'dir' }
  /** A store URL: `sqlite:` or `postgres://` (the path after `sqlite:` is the operator's). */
  | { kind: 'store' }
  /** Free text (a URL, a number, a name): nothing to offer, not even files. */
  | { kind: 'text' }

/** What the shell needs to know about one command; the program itself has the empty path. */
export interface CommandShape {
  /** The subcommand names from the program down, e.g. ['relay', 'token']. */
  path: string[]
  subcommands: { name: string; summary: string; index: number }[]
  /** Its own flags and its parents' (commander takes a parent's option after the subcommand). */
  flags: { name: string; summary: string; takesValue: boolean; variadic: boolean; values: ValueSpec }[]
  /** Per positional argument; the last one repeats when it is variadic. */
  argumentValues: ValueSpec[]
  lastArgumentRepeats: boolean
}

const words = (list: readonly string[]): ValueSpec => ({ kind: 'words', words: list })

/** Values by an option's or argument's name, where the command declares no choices. */
const valuesByName: Record<string, () => ValueSpec> = {
  type: () => words(eventTypes.map((t) => t.type)),
  chain: () => words(chainRegistry.map((c) => String(c.serviceId))),
  store: () => ({ kind: 'store' }),
}

/** Values by the placeholder of an option (`--config <file>`) or an argument's name (`backup <file>`). */
const valuesByPlaceholder: Record<string, () => ValueSpec> = {
  file: () => ({ kind: 'file' }),
  dir: () => ({ kind: 'dir' }),
  store: () => ({ kind: 'store' }),
}

function valuesFor(name: string, placeholder: string, choices: readonly string[] | undefined): ValueSpec {
  if (choices && choices.length > 0) return words(choices)
  return valuesByPlaceholder[placeholder]?.() ?? valuesByName[name]?.() ?? { kind: 'text' }
}

/** `--tls-cert <file>` → `file`; `--store <url>` on a store option is caught by its name. */
const placeholderOf = (option: Option): string => /<([^>.]+)/.exec(option.flags)?.[1] ?? ''

function flagsOf(options: readonly Option[]): CommandShape['flags'] {
  return options
    .filter((o) => !o.hidden)
    .flatMap((o) => {
      const values =
        o.long === '--store'
          ? { kind: 'store' as const }
          : valuesFor(o.attributeName(), placeholderOf(o), o.argChoices)
      return [o.long, o.short]
        .filter((f): f is string => Boolean(f))
        .map((name) => ({
          name,
          summary: o.description,
          takesValue: o.required || o.optional,
          variadic: o.variadic,
          values,
        }))
    })
}

export function commandShapes(program: Command): CommandShape[] {
  const shapes: CommandShape[] = []
  const visit = (command: Command, path: string[], inherited: CommandShape['flags']): number => {
    const index = shapes.length
    const own = flagsOf(command.options)
    const names = new Set(own.map((f) => f.name))
    // The version flag is the program's alone; every other parent flag is taken after a subcommand.
    const flags = [...own, ...inherited.filter((f) => !names.has(f.name))]
    const shape: CommandShape = {
      path,
      subcommands: [],
      flags: [
        ...flags,
        {
          name: '--help',
          summary: 'show help',
          takesValue: false,
          variadic: false,
          values: { kind: 'text' },
        },
      ],
      argumentValues: command.registeredArguments.map((a) => valuesFor(a.name(), a.name(), a.argChoices)),
      lastArgumentRepeats: command.registeredArguments.at(-1)?.variadic ?? false,
    }
    shapes.push(shape)
    const passed = flags.filter((f) => f.name !== '--version' && f.name !== '-V')
    for (const sub of command.commands.filter((c) => !(c as { _hidden?: boolean })._hidden)) {
      const child = visit(sub, [...path, sub.name()], passed)
      shape.subcommands.push({ name: sub.name(), summary: sub.summary() || sub.description(), index: child })
    }
    return index
  }
  visit(program, [], [])
  return shapes
}

/** A value spec as the scripts store it: a letter, then the words for `w`. */
function encode(spec: ValueSpec): string {
  switch (spec.kind) {
    case 'words':
      return `w ${spec.words.join(' ')}`
    case 'file':
      return 'f'
    case 'dir':
      return 'd'
    case 'store':
      return 's'
    case 'text':
      return 'x'
  }
}

/** Single-quoted for bash, zsh and fish alike. */
const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/** The tables, one entry per line, keyed by the command's index (0 is the program). */
function tables(program: Command) {
  const shapes = commandShapes(program)
  const rows = (pick: (s: CommandShape, i: number) => [string, string][]) => shapes.flatMap(pick)
  return {
    subs: rows((s, i) => [[`${i}`, s.subcommands.map((c) => c.name).join(' ')]]),
    child: rows((s, i) => s.subcommands.map((c): [string, string] => [`${i} ${c.name}`, `${c.index}`])),
    flags: rows((s, i) => [[`${i}`, s.flags.map((f) => f.name).join(' ')]]),
    valued: rows((s, i) =>
      s.flags
        .filter((f) => f.takesValue)
        .map((f): [string, string] => [`${i} ${f.name}`, `${f.variadic ? '+' : ''}${encode(f.values)}`]),
    ),
    args: rows((s, i) => s.argumentValues.map((v, n): [string, string] => [`${i} ${n}`, encode(v)])),
    argc: rows((s, i) => [[`${i}`, `${s.argumentValues.length}${s.lastArgumentRepeats ? '+' : ''}`]]),
  }
}

const storePrefixes = 'sqlite: postgres://'

/** The walk over the typed words, in the common subset of bash and zsh. Arguments: the words
 * before the current one, without the program's name. Sets `_watchdesk_spec` (an encoded value
 * spec), `_watchdesk_flagsof` (the command's index) and `_watchdesk_afterflag`. */
const walker = `_watchdesk_walk() {
  local at=0 pending="" position=0 word spec count
  for word in "$@"; do
    if [[ -n $pending && ( $pending == +* ) && $word != -* ]]; then continue; fi
    if [[ -n $pending && $pending != +* ]]; then pending=""; continue; fi
    pending=""
    case "$word" in
      --) ;;
      -*=*) ;;
      -*) pending=\${_watchdesk_valued[$at $word]} ;;
      *) if ((position == 0)) && [[ -n \${_watchdesk_child[$at $word]} ]]; then
           at=\${_watchdesk_child[$at $word]}
         else position=$((position + 1)); fi ;;
    esac
  done
  _watchdesk_flagsof=$at
  # After a flag that takes one value, even "-x" is that value; a variadic one may end at a flag.
  _watchdesk_afterflag=""
  [[ -n $pending && $pending != +* ]] && _watchdesk_afterflag=1
  if [[ -n $pending ]]; then _watchdesk_spec=\${pending#+}; return; fi
  count=\${_watchdesk_argc[$at]}
  if ((position >= \${count%+})) && [[ $count == *+ ]] && ((position > 0)); then position=$((\${count%+} - 1)); fi
  spec=\${_watchdesk_args[$at $position]}
  ((position == 0)) && [[ -n \${_watchdesk_subs[$at]} ]] && spec="w \${_watchdesk_subs[$at]}\${spec#w}"
  _watchdesk_spec=\${spec:-x}
}`

function shTables(program: Command, declare: string): string {
  const t = tables(program)
  const table = (name: keyof typeof t) =>
    `_watchdesk_${name}=(\n${t[name].map(([k, v]) => `  [${quote(k)}]=${quote(v)}`).join('\n')}\n)`
  return [
    `${declare} _watchdesk_subs _watchdesk_child _watchdesk_flags _watchdesk_valued _watchdesk_args _watchdesk_argc`,
    ...(['subs', 'child', 'flags', 'valued', 'args', 'argc'] as const).map(table),
  ].join('\n')
}

export function bashScript(program: Command): string {
  return `# bash completion for watchdesk, generated by \`watchdesk completion bash\` from its command tree.
# Install (bash-completion loads it at the first TAB):
#   mkdir -p ~/.local/share/bash-completion/completions
#   watchdesk completion bash > ~/.local/share/bash-completion/completions/watchdesk
${shTables(program, 'declare -gA')}
${walker}

_watchdesk_complete() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    # bash-completion: words as the user sees them (a store URL's ":" does not split it).
    _init_completion -n := || return
  else
    cur=\${COMP_WORDS[COMP_CWORD]}; words=("\${COMP_WORDS[@]}"); cword=$COMP_CWORD
  fi
  local _watchdesk_spec _watchdesk_flagsof _watchdesk_afterflag
  _watchdesk_walk "\${words[@]:1:cword-1}"
  if [[ $cur == -* && -z $_watchdesk_afterflag ]]; then
    COMPREPLY=($(compgen -W "\${_watchdesk_flags[$_watchdesk_flagsof]}" -- "$cur")); return
  fi
  case $_watchdesk_spec in
    w\\ *) COMPREPLY=($(compgen -W "\${_watchdesk_spec#w }" -- "$cur")) ;;
    f) if declare -F _filedir >/dev/null; then _filedir; else compopt -o filenames; COMPREPLY=($(compgen -f -- "$cur")); fi ;;
    d) if declare -F _filedir >/dev/null; then _filedir -d; else compopt -o filenames; COMPREPLY=($(compgen -d -- "$cur")); fi ;;
    s) COMPREPLY=($(compgen -W ${quote(storePrefixes)} -- "$cur"))
       [[ $cur == *:* ]] && declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
       [[ \${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null ;;
    *) COMPREPLY=() ;;
  esac
}
complete -F _watchdesk_complete watchdesk
`
}

/** zsh: a native completion function (compadd, _files) over the same tables and walk. Installed in
 * a folder of $fpath it is autoloaded at the first TAB, and completes that TAB too (the file's body
 * runs as _watchdesk then); sourced, it registers itself with compdef. */
export function zshScript(program: Command): string {
  return `#compdef watchdesk
# zsh completion for watchdesk, generated by \`watchdesk completion zsh\` from its command tree.
# Install, in a folder of your own on $fpath (before compinit runs in ~/.zshrc):
#   mkdir -p ~/.zfunc && watchdesk completion zsh > ~/.zfunc/_watchdesk
#   ~/.zshrc: fpath=(~/.zfunc $fpath); autoload -U compinit && compinit
# Or, after compinit in ~/.zshrc: source <(watchdesk completion zsh)
${shTables(program, 'typeset -gA')}
${walker}

_watchdesk() {
  local _watchdesk_spec _watchdesk_flagsof _watchdesk_afterflag cur=\${words[CURRENT]}
  _watchdesk_walk "\${(@)words[2,CURRENT-1]}"
  if [[ $cur == -* && -z $_watchdesk_afterflag ]]; then
    compadd -- \${=_watchdesk_flags[$_watchdesk_flagsof]}; return
  fi
  case $_watchdesk_spec in
    w\\ *) compadd -- \${=_watchdesk_spec#w } ;;
    f) _files ;;
    d) _files -/ ;;
    s) compadd -S '' -- ${storePrefixes} ;;
    *) return 1 ;;
  esac
}

if [[ \${funcstack[1]} == _watchdesk ]]; then
  _watchdesk "$@"
else
  compdef _watchdesk watchdesk
fi
`
}

export function fishScript(program: Command): string {
  const t = tables(program)
  const lines = [
    '# fish completion for watchdesk, generated by `watchdesk completion fish` from its command tree.',
    '# Install: mkdir -p ~/.config/fish/completions',
    '#          watchdesk completion fish > ~/.config/fish/completions/watchdesk.fish',
    '# fish has no associative arrays: one variable per key, named with string escape --style=var.',
    ...(['subs', 'child', 'flags', 'valued', 'args', 'argc'] as const).flatMap((table) =>
      t[table].map(
        ([k, v]) => `set -g __watchdesk_${table}_(string escape --style=var -- ${quote(k)}) ${quote(v)}`,
      ),
    ),
    `function __watchdesk_get --description 'one entry of the completion tables'
  set -l var __watchdesk_$argv[1]_(string escape --style=var -- "$argv[2..]")
  set -q $var; and echo $$var
end
function __watchdesk_complete --description 'candidates for the current token'
  set -l tokens (commandline -opc)
  set -l cur (commandline -ct)
  set -l at 0
  set -l pending ''
  set -l position 0
  for word in $tokens[2..]
    if test -n "$pending"; and string match -q '+*' -- $pending; and not string match -q -- '-*' $word
      continue
    end
    if test -n "$pending"; and not string match -q '+*' -- $pending
      set pending ''
      continue
    end
    set pending ''
    switch $word
      case '--' '-*=*'
      case '-*'
        set pending (__watchdesk_get valued $at $word)
      case '*'
        set -l child (__watchdesk_get child $at $word)
        if test $position -eq 0 -a -n "$child"
          set at $child
        else
          set position (math $position + 1)
        end
    end
  end
  set -l spec
  set -l afterflag ''
  if test -n "$pending"
    set spec (string replace -r '^\\+' '' -- $pending)
    string match -q '+*' -- $pending; or set afterflag 1
  else
    set -l count (__watchdesk_get argc $at)
    set -l n (string replace '+' '' -- $count)
    if test $position -ge $n -a $position -gt 0; and string match -q '*+' -- $count
      set position (math $n - 1)
    end
    set spec (__watchdesk_get args $at $position)
    set -l subs (__watchdesk_get subs $at)
    if test $position -eq 0 -a -n "$subs"
      set spec "w $subs"(string replace -r '^w' '' -- "$spec")
    end
    test -n "$spec"; or set spec x
  end
  if string match -q -- '-*' $cur; and test -z "$afterflag"
    string split ' ' -- (__watchdesk_get flags $at)
    return
  end
  switch $spec
    case 'w *'
      string split ' ' -- (string replace -r '^w ' '' -- $spec)
    case f
      __fish_complete_path $cur
    case d
      __fish_complete_directories $cur ''
    case s
      printf '%s\\n' ${storePrefixes.split(' ').join(' ')}
  end
end
complete -c watchdesk -f -a '(__watchdesk_complete)'`,
  ]
  return lines.join('\n') + '\n'
}

const scripts = { bash: bashScript, zsh: zshScript, fish: fishScript }

export function registerCompletion(program: Command, ctx: CliContext): void {
  // --data-dir and --config as on every command (DESIGN.md): taken, and nothing read from them.
  const command = withCommon(program.command('completion'), { json: false })
    .description(
      'Prints a completion script for the shell, generated from the command tree: commands, flags, every choice a flag takes, event types, chain ids, files and folders for path options. --data-dir and --config are taken as on every command; the script does not depend on them.',
    )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(scripts)))
    .action((shell: keyof typeof scripts) => {
      ctx.io.out(scripts[shell](program).replace(/\n$/, ''))
      ctx.exit(exitCodes.ok)
    })
  example(
    command,
    'watchdesk completion bash > ~/.local/share/bash-completion/completions/watchdesk',
    'watchdesk completion fish > ~/.config/fish/completions/watchdesk.fish',
  )
}
